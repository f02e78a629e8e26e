// RowListModel<Row>: roles from one table, a reset for new rows (countChanged only when their number changes,
// the model's other state changed inside the reset), rows replaced in place when they are the same rows, one
// row inserted or removed. Every model here runs under QAbstractItemModelTester; expected values are written
// out by hand.
#include <QAbstractItemModelTester>
#include <QMetaProperty>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <vector>

#include "row_list_model.h"

using namespace meshscope::ui;

namespace {

struct Fruit {
    QString name;
    int grams = 0;
    friend bool operator==(const Fruit&, const Fruit&) = default;
};

using Fruits = std::vector<Fruit>;
using Spans = QList<QPair<int, int>>;  // dataChanged's first and last row, in the order they came

enum FruitRole { NameRole = Qt::UserRole + 1, GramsRole, LabelRole };

constexpr RowRole<Fruit> fruit_roles[] = {
    {NameRole, "name", [](const Fruit& f) -> QVariant { return f.name; }},
    {GramsRole, "grams", [](const Fruit& f) -> QVariant { return f.grams; }},
    {LabelRole, "label",
     [](const Fruit& f) -> QVariant { return QStringLiteral("%1, %2 g").arg(f.name).arg(f.grams); }},
};
static_assert(roles_in_order(fruit_roles));

constexpr RowRole<Fruit> out_of_order[] = {
    {GramsRole, "grams", [](const Fruit& f) -> QVariant { return f.grams; }},
    {NameRole, "name", [](const Fruit& f) -> QVariant { return f.name; }},
};
static_assert(!roles_in_order(out_of_order));

class FruitModel : public RowListModel<Fruit> {
public:
    explicit FruitModel(QObject* parent = nullptr) : RowListModel(fruit_roles, LabelRole, parent) {}
    using RowListModel::insertRowAt;
    using RowListModel::removeRowAt;
    using RowListModel::setRows;
    using RowListModel::updateRows;

    QString season;  // state that changes with the rows
};

bool same_name(const Fruit& a, const Fruit& b) {
    return a.name == b.name;
}

Spans spans_of(const QSignalSpy& spy) {
    Spans spans;
    for (const QList<QVariant>& args : spy)
        spans << qMakePair(args.at(0).toModelIndex().row(), args.at(1).toModelIndex().row());
    return spans;
}

const Fruit apple{QStringLiteral("apple"), 120};
const Fruit pear{QStringLiteral("pear"), 180};
const Fruit plum{QStringLiteral("plum"), 40};

}  // namespace

Q_DECLARE_METATYPE(Fruits)
Q_DECLARE_METATYPE(meshscope::ui::RowChanges)

class TestRowListModel : public QObject {
    Q_OBJECT

private slots:
    void roles_data() {
        QTest::addColumn<int>("row");
        QTest::addColumn<int>("role");
        QTest::addColumn<QVariant>("expected");
        QTest::addRow("name") << 1 << int(NameRole) << QVariant(QStringLiteral("pear"));
        QTest::addRow("grams") << 1 << int(GramsRole) << QVariant(180);
        QTest::addRow("label") << 0 << int(LabelRole) << QVariant(QStringLiteral("apple, 120 g"));
        QTest::addRow("display reads the label") << 2 << int(Qt::DisplayRole) << QVariant(QStringLiteral("plum, 40 g"));
        QTest::addRow("a role of Qt's the table lacks") << 0 << int(Qt::ToolTipRole) << QVariant();
        QTest::addRow("the role before the first") << 0 << int(Qt::UserRole) << QVariant();
        QTest::addRow("the role after the last") << 0 << int(LabelRole + 1) << QVariant();
    }
    void roles() {
        QFETCH(int, row);
        QFETCH(int, role);
        QFETCH(QVariant, expected);
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows({apple, pear, plum});
        QCOMPARE(model.data(model.index(row), role), expected);
        const QHash<int, QByteArray> names{{NameRole, "name"}, {GramsRole, "grams"}, {LabelRole, "label"}};
        QCOMPARE(model.roleNames(), names);
    }

    void setRows_data() {
        QTest::addColumn<Fruits>("before");
        QTest::addColumn<Fruits>("after");
        QTest::addColumn<int>("countChanges");
        QTest::addRow("first rows") << Fruits{} << Fruits{apple, pear} << 1;
        QTest::addRow("other rows, as many") << Fruits{apple, pear} << Fruits{plum, apple} << 0;
        QTest::addRow("the same rows") << Fruits{apple, pear} << Fruits{apple, pear} << 0;
        QTest::addRow("one more") << Fruits{apple} << Fruits{apple, pear} << 1;
        QTest::addRow("none") << Fruits{apple, pear} << Fruits{} << 1;
        QTest::addRow("none again") << Fruits{} << Fruits{} << 0;
    }
    void setRows() {
        QFETCH(Fruits, before);
        QFETCH(Fruits, after);
        QFETCH(int, countChanges);
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(before, [&] { model.season = QStringLiteral("summer"); });
        // The model's other state changes inside the reset: views see it with the new rows, not before.
        QString season_before_reset;
        QString season_at_reset;
        connect(&model, &QAbstractItemModel::modelAboutToBeReset, this, [&] { season_before_reset = model.season; });
        connect(&model, &QAbstractItemModel::modelReset, this, [&] { season_at_reset = model.season; });
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy counts(&model, &RowListModelBase::countChanged);
        model.setRows(after, [&] { model.season = QStringLiteral("autumn"); });
        QCOMPARE(resets.size(), 1);
        QCOMPARE(counts.size(), countChanges);
        QCOMPARE(model.rows(), after);
        QCOMPARE(model.rowCount(), int(after.size()));
        QCOMPARE(model.count(), int(after.size()));
        QCOMPARE(season_before_reset, QStringLiteral("summer"));
        QCOMPARE(season_at_reset, QStringLiteral("autumn"));
    }

    void updateRows_data() {
        QTest::addColumn<Fruits>("before");
        QTest::addColumn<Fruits>("after");
        QTest::addColumn<RowChanges>("changes");
        QTest::addColumn<int>("resets");
        QTest::addColumn<Spans>("spans");
        QTest::addColumn<int>("countChanges");
        const Fruit heavy_apple{QStringLiteral("apple"), 150};
        const Fruit light_plum{QStringLiteral("plum"), 30};
        QTest::addRow("nothing changed, each")
            << Fruits{apple, pear, plum} << Fruits{apple, pear, plum} << RowChanges::each << 0 << Spans{} << 0;
        QTest::addRow("nothing changed, span")
            << Fruits{apple, pear, plum} << Fruits{apple, pear, plum} << RowChanges::span << 0 << Spans{} << 0;
        QTest::addRow("first and last changed, each")
            << Fruits{apple, pear, plum} << Fruits{heavy_apple, pear, light_plum} << RowChanges::each << 0
            << Spans{{0, 0}, {2, 2}} << 0;
        QTest::addRow("first and last changed, span")
            << Fruits{apple, pear, plum} << Fruits{heavy_apple, pear, light_plum} << RowChanges::span << 0
            << Spans{{0, 2}} << 0;
        QTest::addRow("the middle one changed, span")
            << Fruits{apple, pear, plum} << Fruits{apple, Fruit{QStringLiteral("pear"), 1}, plum} << RowChanges::span
            << 0 << Spans{{1, 1}} << 0;
        QTest::addRow("other order: a reset")
            << Fruits{apple, pear} << Fruits{pear, apple} << RowChanges::each << 1 << Spans{} << 0;
        QTest::addRow("one more: a reset")
            << Fruits{apple, pear} << Fruits{apple, pear, plum} << RowChanges::span << 1 << Spans{} << 1;
        QTest::addRow("one fewer: a reset")
            << Fruits{apple, pear} << Fruits{apple} << RowChanges::each << 1 << Spans{} << 1;
        QTest::addRow("none to none") << Fruits{} << Fruits{} << RowChanges::each << 0 << Spans{} << 0;
    }
    void updateRows() {
        QFETCH(Fruits, before);
        QFETCH(Fruits, after);
        QFETCH(RowChanges, changes);
        QFETCH(int, resets);
        QFETCH(Spans, spans);
        QFETCH(int, countChanges);
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(before);
        QSignalSpy reset_spy(&model, &QAbstractItemModel::modelReset);
        QSignalSpy data_spy(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy count_spy(&model, &RowListModelBase::countChanged);
        bool alongside = false;
        model.updateRows(after, same_name, changes, [&] { alongside = true; });
        QCOMPARE(reset_spy.size(), resets);
        QCOMPARE(spans_of(data_spy), spans);
        QCOMPARE(count_spy.size(), countChanges);
        QCOMPARE(alongside, resets == 1);  // the other state changes with a reset only
        QCOMPARE(model.rows(), after);
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.data(model.index(row), GramsRole), QVariant(after[std::size_t(row)].grams));
    }

    void insertAndRemove_data() {
        QTest::addColumn<bool>("insert");
        QTest::addColumn<int>("at");
        QTest::addColumn<Fruits>("after");
        QTest::addRow("insert first") << true << 0 << Fruits{plum, apple, pear};
        QTest::addRow("insert between") << true << 1 << Fruits{apple, plum, pear};
        QTest::addRow("append") << true << 2 << Fruits{apple, pear, plum};
        QTest::addRow("remove first") << false << 0 << Fruits{pear};
        QTest::addRow("remove last") << false << 1 << Fruits{apple};
    }
    void insertAndRemove() {
        QFETCH(bool, insert);
        QFETCH(int, at);
        QFETCH(Fruits, after);
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows({apple, pear});
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy counts(&model, &RowListModelBase::countChanged);
        if (insert)
            model.insertRowAt(at, plum);
        else
            model.removeRowAt(at);
        QSignalSpy& told = insert ? inserted : removed;
        QCOMPARE(told.size(), 1);
        QCOMPARE(told.at(0).at(1).toInt(), at);
        QCOMPARE(told.at(0).at(2).toInt(), at);
        QCOMPARE((insert ? removed : inserted).size(), 0);
        QCOMPARE(counts.size(), 1);
        QCOMPARE(model.rows(), after);
        QCOMPARE(model.data(model.index(0), NameRole), QVariant(after.front().name));
    }

    // QML reads `count` and is told by countChanged.
    void countProperty() {
        FruitModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QMetaObject* meta = model.metaObject();
        const QMetaProperty count = meta->property(meta->indexOfProperty("count"));
        QVERIFY(count.isValid());
        QVERIFY(count.hasNotifySignal());
        QCOMPARE(count.notifySignal().name(), QByteArray("countChanged"));
        QCOMPARE(model.property("count"), QVariant(0));
        model.setRows({apple, pear, plum});
        QCOMPARE(model.property("count"), QVariant(3));
    }
};

QTEST_GUILESS_MAIN(TestRowListModel)
#include "tst_row_list_model.moc"
