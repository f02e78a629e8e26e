// Shared helpers for the core tests: metatypes for the std containers the _data() tables carry, and
// a check that an Expected holds an error of one type with one exact text.
#pragma once

#include <QMetaType>
#include <QTest>

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/mesh/error.h"

using Ints = std::vector<std::int64_t>;
using IntGroups = std::vector<std::vector<std::int64_t>>;
using Names = std::vector<std::string>;

Q_DECLARE_METATYPE(Ints)
Q_DECLARE_METATYPE(IntGroups)
Q_DECLARE_METATYPE(Names)
Q_DECLARE_METATYPE(meshscope::ErrorType)

namespace test {

inline Ints iota(std::int64_t from, std::int64_t to, std::int64_t step = 1) {
    Ints out;
    for (std::int64_t v = from; v < to; v += step) out.push_back(v);
    return out;
}

inline QByteArray show(const Ints& values) {
    QByteArray out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + QByteArray::number(values[i]);
    return out + "]";
}

inline QByteArray show(const IntGroups& groups) {
    QByteArray out = "[";
    for (std::size_t i = 0; i < groups.size(); ++i) out += (i ? "," : "") + show(groups[i]);
    return out + "]";
}

}  // namespace test

// Compares two containers and prints both when they differ (QCOMPARE on std::vector prints nothing useful).
#define COMPARE_INTS(actual, expected)                                                           \
    do {                                                                                         \
        const auto a_ = (actual);                                                                \
        const auto e_ = (expected);                                                              \
        if (a_ != e_) QFAIL(("got " + test::show(a_) + "\nwant " + test::show(e_)).constData()); \
    } while (false)

// An Expected must hold an error of `error_kind` whose text is exactly `text`.
#define COMPARE_ERROR(expected_value, error_kind, text)                                                    \
    do {                                                                                                   \
        const auto& x_ = (expected_value);                                                                 \
        QVERIFY2(!x_.has_value(), "expected an error, got a value");                                       \
        QCOMPARE(QString::fromStdString(x_.error().message()), QString::fromStdString(std::string(text))); \
        QCOMPARE(x_.error().type(), (error_kind));                                                         \
    } while (false)
