// The window's file dialogs in one place: the name to open or to save under. A save name gets
// the filter's suffix (".json" of "nnwb experiments (*.json)") when the user typed none. Tests
// answer the dialogs with setFileDialogAnswer instead of a native dialog. GUI thread only.
#pragma once

#include <functional>

#include <QString>
#include <QStringList>

class QWidget;

namespace nnwb {

// What the dialog would have asked: its caption, the suggested name or folder and the filter.
struct FileDialogQuestion {
    QString caption, suggested, filter;  // filter: "" for a folder
    bool save = false;
};
// Returns the chosen path ("" for Cancel).
using FileDialogAnswer = std::function<QString(const FileDialogQuestion&)>;

// While set (tests), every dialog below is answered by `answer` instead of being shown; an
// empty function shows the dialogs again.
void setFileDialogAnswer(FileDialogAnswer answer);

QString openFileName(QWidget* parent, const QString& caption, const QString& dir,
                     const QString& filter);
QStringList openFileNames(QWidget* parent, const QString& caption, const QString& dir,
                          const QString& filter);
// The path to save under, with the first suffix of `filter` added when it has none.
QString saveFileName(QWidget* parent, const QString& caption, const QString& suggested,
                     const QString& filter);
// A folder (created by the caller when missing).
QString existingDirectory(QWidget* parent, const QString& caption, const QString& dir);
// `path` with the first suffix of `filter` ("*.csv" → ".csv") added when it has no suffix.
QString withDefaultSuffix(const QString& path, const QString& filter);

}  // namespace nnwb
