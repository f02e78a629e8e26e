// Preferences: how the window looks, owned by the application and remembered by it (QSettings).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>

namespace meshscope::ui {

class Preferences : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(bool darkTheme READ darkTheme WRITE setDarkTheme NOTIFY darkThemeChanged)

public:
    using QObject::QObject;

    [[nodiscard]] bool darkTheme() const { return dark_theme_; }
    void setDarkTheme(bool dark) {
        if (dark == dark_theme_) return;
        dark_theme_ = dark;
        emit darkThemeChanged();
    }

signals:
    void darkThemeChanged();

private:
    bool dark_theme_ = false;
};

}  // namespace meshscope::ui
