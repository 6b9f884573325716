// Includes QCustomPlot in a build that uses Q_SIGNALS/Q_SLOTS instead of the `signals`/`slots`
// keywords (model/ has members named `signals`): the header still spells `signals:`, so the
// keyword is defined around it only. Include this instead of <qcustomplot.h>. GUI thread only.
#pragma once

#include <QtGlobal>

#ifndef signals
#define signals Q_SIGNALS
#define NNWB_PLOT_DEFINED_SIGNALS
#endif
#include <qcustomplot.h>
#ifdef NNWB_PLOT_DEFINED_SIGNALS
#undef signals
#undef NNWB_PLOT_DEFINED_SIGNALS
#endif
