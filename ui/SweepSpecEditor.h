// The spec of a sweep as JSON text (the file `nnwb-cli sweep run` takes): Open… and Save…
// a spec file (Open… starts in the example specs' folder until a file is open), Check it with
// the spec loader, and the loader's error (FILE:LINE for bad JSON, the path in the spec
// otherwise) in red under the text. GUI thread only.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace nnwb {

class SweepSpecEditor : public QWidget {
    Q_OBJECT
public:
    explicit SweepSpecEditor(QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text, const QString& file = {});
    QString file() const { return file_; }  // "" : not from a file
    void setFile(const QString& file);
    bool openFile(const QString& path);    // false (with the error shown) when unreadable
    void showError(const QString& error);  // "" clears it
    QString error() const;
    QPlainTextEdit* editor() const { return edit_; }
    QPushButton* checkButton() const { return check_; }
    // The example sweep specs (resources/sweeps: installed, or the source tree's); "" if none.
    static QString examplesFolder();

Q_SIGNALS:
    void checkRequested();

private:
    void openDialog();
    void saveDialog();

    QPlainTextEdit* edit_;
    QLabel* fileLabel_;
    QLabel* error_;
    QPushButton* check_;
    QString file_;
};

}  // namespace nnwb
