#include "ui/FileDialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>

namespace nnwb {

namespace {

FileDialogAnswer& answerHook() {
    static FileDialogAnswer answer;
    return answer;
}

// "safetensors (*.safetensors)" → "safetensors"; "" when the filter names no suffix.
QString firstSuffix(const QString& filter) {
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("\\*\\.([A-Za-z0-9_]+)")).match(filter);
    return m.hasMatch() ? m.captured(1) : QString();
}

}  // namespace

void setFileDialogAnswer(FileDialogAnswer answer) {
    answerHook() = std::move(answer);
}

QString withDefaultSuffix(const QString& path, const QString& filter) {
    const QString suffix = firstSuffix(filter);
    if (path.isEmpty() || suffix.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
    return path + QLatin1Char('.') + suffix;
}

QString openFileName(QWidget* parent, const QString& caption, const QString& dir,
                     const QString& filter) {
    if (answerHook()) return answerHook()({caption, dir, filter, false});
    return QFileDialog::getOpenFileName(parent, caption, dir, filter);
}

QStringList openFileNames(QWidget* parent, const QString& caption, const QString& dir,
                          const QString& filter) {
    if (answerHook()) {
        const QString answer = answerHook()({caption, dir, filter, false});
        return answer.isEmpty() ? QStringList() : answer.split(QLatin1Char('\n'));
    }
    return QFileDialog::getOpenFileNames(parent, caption, dir, filter);
}

QString existingDirectory(QWidget* parent, const QString& caption, const QString& dir) {
    if (answerHook()) return answerHook()({caption, dir, QString(), false});
    return QFileDialog::getExistingDirectory(parent, caption, dir);
}

QString saveFileName(QWidget* parent, const QString& caption, const QString& suggested,
                     const QString& filter) {
    if (answerHook())
        return withDefaultSuffix(answerHook()({caption, suggested, filter, true}), filter);
    // The dialog itself adds the suffix too, so that it asks before replacing "name.json".
    QFileDialog dialog(parent, caption, suggested, filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(firstSuffix(filter));
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
    return withDefaultSuffix(dialog.selectedFiles().first(), filter);
}

}  // namespace nnwb
