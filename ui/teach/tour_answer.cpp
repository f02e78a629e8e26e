#include "tour_answer.h"

namespace meshscope::ui {

void TourAnswer::clear() {
    solved_ = false;
    wrong_ = false;
    message_.clear();
    attempts_ = 0;
    emit changed();
}

void TourAnswer::judged(bool correct, const QString& message) {
    solved_ = solved_ || correct;
    wrong_ = !correct;
    message_ = message;
    ++attempts_;
    emit changed();
}

}  // namespace meshscope::ui
