#include "ui/SweepSpecEditor.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/core/Presets.h"
#include "model/AtomicFile.h"

namespace nnwb {

SweepSpecEditor::SweepSpecEditor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open…"), this);
    auto* save = new QPushButton(tr("Save As…"), this);
    check_ = new QPushButton(tr("Check"), this);
    check_->setToolTip(tr("Load the spec as nnwb-cli sweep run would and show what is wrong"));
    for (QPushButton* b : {open, save, check_}) buttons->addWidget(b);
    buttons->addStretch();
    layout->addLayout(buttons);
    fileLabel_ = new QLabel(tr("(not saved)"), this);
    fileLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(fileLabel_);
    edit_ = new QPlainTextEdit(this);
    edit_->setObjectName(QStringLiteral("sweepSpecText"));
    edit_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    edit_->setLineWrapMode(QPlainTextEdit::NoWrap);
    layout->addWidget(edit_, 1);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("sweepSpecError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b00000"));
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->hide();
    layout->addWidget(error_);
    connect(open, &QPushButton::clicked, this, &SweepSpecEditor::openDialog);
    connect(save, &QPushButton::clicked, this, &SweepSpecEditor::saveDialog);
    connect(check_, &QPushButton::clicked, this, &SweepSpecEditor::checkRequested);
}

QString SweepSpecEditor::text() const {
    return edit_->toPlainText();
}

void SweepSpecEditor::setText(const QString& text, const QString& file) {
    edit_->setPlainText(text);
    setFile(file);
    showError({});
}

void SweepSpecEditor::setFile(const QString& file) {
    file_ = file;
    fileLabel_->setText(file.isEmpty() ? tr("(not saved: Start saves it in the store's folder)")
                                       : file);
}

bool SweepSpecEditor::openFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        showError(tr("%1: cannot read it (%2)").arg(path, f.errorString()));
        return false;
    }
    setText(QString::fromUtf8(f.readAll()), path);
    return true;
}

void SweepSpecEditor::showError(const QString& error) {
    error_->setText(error);
    error_->setVisible(!error.isEmpty());
}

QString SweepSpecEditor::error() const {
    return error_->isVisible() ? error_->text() : QString();
}

QString SweepSpecEditor::examplesFolder() {
    for (const QString& dir : resourceDirs())
        if (QFileInfo(dir + QStringLiteral("/sweeps")).isDir())
            return dir + QStringLiteral("/sweeps");
    return {};
}

void SweepSpecEditor::openDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Sweep Spec"),
                                                      file_.isEmpty() ? examplesFolder() : file_,
                                                      tr("Sweep specs (*.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

void SweepSpecEditor::saveDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Sweep Spec"), file_,
                                                      tr("Sweep specs (*.json)"));
    if (path.isEmpty()) return;
    try {
        writeFileAtomic(path.toStdString(), text().toStdString());
        setFile(path);
    } catch (const std::exception& e) {
        showError(QString::fromStdString(e.what()));
    }
}

}  // namespace nnwb
