// Shared helpers for the tour tests: a one-step tour around a step's JSON, parsed, and exact-text checks.
#pragma once

#include <QTest>

#include <string>

#include "meshscope/tour/tour.h"

namespace test {

// {"schema": ..., "steps": [steps...]} with a valid name, title and summary.
inline std::string tour_json(const std::string& steps) {
    return R"({"schema": "meshscope.tour/1", "name": "t", "title": "T", "summary": "S", "steps": [)" + steps + "]}";
}

// The last step of a tour of these steps; fails the test when the tour does not parse.
inline meshscope::TourStep last_step(const std::string& steps) {
    const auto tour = meshscope::parse_tour(tour_json(steps));
    if (!tour) {
        QTest::qFail(tour.error().what(), __FILE__, __LINE__);
        return {};
    }
    return tour->steps.back();
}

// JSON compared as text: QCOMPARE on nlohmann::json itself trips over QTest's qfloat16 overloads.
inline QString dump(const nlohmann::json& value) {
    return QString::fromStdString(value.dump());
}

}  // namespace test
