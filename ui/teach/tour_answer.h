// TourAnswer: core's verdict on the learner's latest answer to the open step's task: whether the step is
// solved (then "Next" goes on), and core's message, for a wrong answer why it is wrong without giving the
// answer away. Reset when a step opens.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>

namespace meshscope::ui {

class TourAnswer : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TourAnswer belongs to a TourController")
    Q_PROPERTY(bool solved READ solved NOTIFY changed)
    Q_PROPERTY(bool wrong READ wrong NOTIFY changed)  // the latest answer was judged wrong
    Q_PROPERTY(QString message READ message NOTIFY changed)
    Q_PROPERTY(int attempts READ attempts NOTIFY changed)

public:
    using QObject::QObject;

    [[nodiscard]] bool solved() const { return solved_; }
    [[nodiscard]] bool wrong() const { return wrong_; }
    [[nodiscard]] QString message() const { return message_; }
    [[nodiscard]] int attempts() const { return attempts_; }

    void clear();
    void judged(bool correct, const QString& message);

signals:
    void changed();

private:
    bool solved_ = false;
    bool wrong_ = false;
    QString message_;
    int attempts_ = 0;
};

}  // namespace meshscope::ui
