#include "ui/TabPageFit.h"

#include <QTabWidget>

namespace nnwb {

void fitTabWidgetToCurrentPage(QTabWidget* tabs) {
    for (int i = 0; i < tabs->count(); ++i) {
        const auto policy =
            i == tabs->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored;
        tabs->widget(i)->setSizePolicy(policy, policy);
    }
}

}  // namespace nnwb
