#include "ui/FieldHelp.h"

#include <QWidget>

#include "model/DataSettings.h"
#include "model/TrainingSettings.h"

namespace nnwb {

int applyFieldHelp(QWidget* pane) {
    int set = 0;
    for (const std::vector<SettingSpec>* table : {&trainingSettingSpecs(), &dataSettings()})
        for (const SettingSpec& s : *table)
            for (QWidget* w : pane->findChildren<QWidget*>(QString::fromStdString(s.name)))
                if (w->toolTip().isEmpty()) {
                    w->setToolTip(QString::fromStdString(s.help));
                    ++set;
                }
    return set;
}

}  // namespace nnwb
