#include "app/core/DocumentEditCommand.h"

#include <QStringList>

#include "app/core/ExperimentDocument.h"

namespace nnwb {

namespace {

QString shortValue(const nlohmann::json& v) {
    if (v.is_null()) return QStringLiteral("(unset)");
    QString s = QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
    const int slash = s.lastIndexOf(QLatin1Char('/'));
    if (v.is_string() && slash >= 0) s = s.mid(slash + 1);  // a file: its name
    return s.size() > 24 ? s.left(23) + QChar(0x2026) : s;
}

// Changed leaves as "key" or "key.sub" (one level into objects such as features, optimizer).
void diff(const nlohmann::json& a, const nlohmann::json& b, const QString& prefix, int depth,
          QStringList* keys, nlohmann::json* from, nlohmann::json* to) {
    if (a == b) return;
    if (depth < 2 && a.is_object() && b.is_object()) {
        nlohmann::json all = a;
        for (auto it = b.begin(); it != b.end(); ++it)
            if (!all.contains(it.key())) all[it.key()] = nullptr;
        for (auto it = all.begin(); it != all.end(); ++it) {
            const nlohmann::json& x = a.contains(it.key()) ? a[it.key()] : nlohmann::json();
            const nlohmann::json& y = b.contains(it.key()) ? b[it.key()] : nlohmann::json();
            diff(x, y,
                 prefix.isEmpty() ? QString::fromStdString(it.key())
                                  : prefix + QLatin1Char('.') + QString::fromStdString(it.key()),
                 depth + 1, keys, from, to);
        }
        return;
    }
    keys->append(prefix);
    *from = a;
    *to = b;
}

}  // namespace

DocumentEditCommand::DocumentEditCommand(ExperimentDocument* doc, DocumentSection section,
                                         nlohmann::json before, nlohmann::json after,
                                         const QString& text)
    : doc_(doc), section_(section), before_(std::move(before)), after_(std::move(after)) {
    static const char* names[] = {"Data", "Training", "Name", "Trading", "Validation"};
    setText(text.isEmpty() ? describe(QObject::tr(names[int(section)]), before_, after_) : text);
}

void DocumentEditCommand::undo() {
    doc_->applySection(section_, before_);
}

void DocumentEditCommand::redo() {
    doc_->applySection(section_, after_);
}

QString DocumentEditCommand::describe(const QString& section, const nlohmann::json& before,
                                      const nlohmann::json& after) {
    QStringList keys;
    nlohmann::json from, to;
    diff(before, after, {}, 0, &keys, &from, &to);
    // A pane writes all its fields at once: keys that only appear (defaults written out for
    // the first time) say less than a value that really changed, so name the latter.
    if (before.is_object() && after.is_object()) {
        QStringList changed;
        nlohmann::json cf, ct;
        nlohmann::json b = nlohmann::json::object(), a = nlohmann::json::object();
        for (auto it = before.begin(); it != before.end(); ++it)
            if (after.contains(it.key())) {
                b[it.key()] = it.value();
                a[it.key()] = after[it.key()];
            }
        diff(b, a, {}, 0, &changed, &cf, &ct);
        if (!changed.isEmpty()) {
            keys = changed;
            from = cf;
            to = ct;
        }
    }
    if (keys.isEmpty()) return section;
    if (keys.size() == 1)
        return keys[0].isEmpty()
                   ? QStringLiteral("%1: %2 → %3").arg(section, shortValue(from), shortValue(to))
                   : QStringLiteral("%1: %2 %3 → %4")
                         .arg(section, keys[0], shortValue(from), shortValue(to));
    if (keys.size() > 3)
        return QStringLiteral("%1: %2 and %3 more").arg(section, keys[0]).arg(keys.size() - 1);
    return QStringLiteral("%1: %2").arg(section, keys.join(QStringLiteral(", ")));
}

}  // namespace nnwb
