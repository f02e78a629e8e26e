// GridGeometry and GridPainter: every rank has one cell and the cell hit-tests back to it, navigation moves
// to neighbouring cells, groups merge into runs, both meshes agree on where ranks sit, and the painted
// picture (screen or export) shows node colours and the selected rank's groups.
#include <QFile>
#include <QPainter>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>
#include <set>

#include "dim_style.h"
#include "grid_geometry.h"
#include "grid_painter.h"
#include "mesh_grid_item.h"
#include "meshscope/mesh/plan.h"

using namespace meshscope;
using namespace meshscope::ui;

namespace {
std::shared_ptr<const Plan> make_plan(std::int64_t dp, std::int64_t cp, std::int64_t ep, std::int64_t gpus) {
    return std::make_shared<const Plan>(Plan::make(*Topology::make(dp, cp, ep), gpus).value());
}

int count_colour(const QImage& image, QColor colour) {
    int n = 0;
    const QRgb wanted = colour.rgb();
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if ((image.pixel(x, y) & 0xFFFFFF) == (wanted & 0xFFFFFF)) ++n;
    return n;
}
}  // namespace

class TestGridGeometry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);  // as on machines without a GPU
    }

    void every_rank_has_one_cell_data() {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<bool>("expert");
        QTest::addRow("dp16 ep8 expert") << 16 << 1 << 8 << 8 << true;
        QTest::addRow("dp8 cp2 ep2 expert") << 8 << 2 << 2 << 8 << true;
        QTest::addRow("dp8 cp2 ep2 data") << 8 << 2 << 2 << 8 << false;
        QTest::addRow("dp12 ep1 data, partial block") << 12 << 1 << 1 << 8 << false;
        QTest::addRow("dp6 cp3 ep1 data") << 6 << 3 << 1 << 4 << false;
        QTest::addRow("dp512 cp2 ep16 expert") << 512 << 2 << 16 << 8 << true;
    }

    void every_rank_has_one_cell() {
        QFETCH(int, dp);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(int, gpus);
        QFETCH(bool, expert);
        const GridGeometry g(make_plan(dp, cp, ep, gpus), expert ? GridMesh::expert : GridMesh::data);
        QCOMPARE(g.kind(), expert ? GridMesh::expert : GridMesh::data);
        std::set<std::pair<double, double>> seen;
        for (std::int64_t r = 0; r < g.world(); ++r) {
            const QRectF cell = g.cell_rect(r);
            QVERIFY(g.content_rect().contains(cell));
            QCOMPARE(g.hit(cell.center()), std::optional<std::int64_t>(r));
            QCOMPARE(g.rank_at(g.position_of(r)), std::optional<std::int64_t>(r));
            QVERIFY(seen.insert({cell.x(), cell.y()}).second);
            // Each arrow leads to another cell in that direction, or stays at the edge.
            const std::int64_t right = g.neighbour(r, 1, 0);
            QVERIFY(right == r || g.cell_rect(right).x() > cell.x());
            const std::int64_t down = g.neighbour(r, 0, 1);
            QVERIFY(down == r || g.cell_rect(down).y() > cell.y());
            if (right != r) QCOMPARE(g.neighbour(right, -1, 0), r);
        }
        // Gaps hit nothing.
        QCOMPARE(g.hit(QPointF(1, 1)), std::optional<std::int64_t>());
    }

    void the_expert_mesh_is_drawn_as_blocks_data() {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("rows");
        QTest::addColumn<QString>("first_label");
        QTest::addRow("dp16 ep8") << 16 << 1 << 8 << 2 << 8 << 1 << "efsdp 0";
        QTest::addRow("dp8 cp2 ep2") << 8 << 2 << 2 << 4 << 2 << 2 << "efsdp 0";
        QTest::addRow("dp16384 ep8") << 16384 << 1 << 8 << 2048 << 8 << 1 << "efsdp 0";
    }

    void the_expert_mesh_is_drawn_as_blocks() {
        QFETCH(int, dp);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(int, blocks);
        QFETCH(int, columns);
        QFETCH(int, rows);
        QFETCH(QString, first_label);
        const GridGeometry g(make_plan(dp, cp, ep, 8), GridMesh::expert);
        QCOMPARE(g.blocks(), blocks);
        QCOMPARE(g.columns(), columns);
        QCOMPARE(g.rows(), rows);
        QCOMPARE(g.block_label(0), first_label);
        QCOMPARE(g.axes_text(), QStringLiteral("blocks efsdp · columns ep · rows expert_cp"));
    }

    // LlamaFactory's model mesh: one row per block, a block a run of one mp_shard group (the largest divisor of
    // mp_shard up to a node's GPUs), so rank = block * columns + column. Worked by hand per row.
    void the_model_mesh_is_drawn_as_runs_of_mp_shard_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("mp_replicate");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("label");  // of the rank's block
        QTest::addRow("(2, 8)") << 16 << 2 << 2 << 8 << 13 << 1 << 5 << "mp_replicate 1 · mp_shard 0–7";
        QTest::addRow("default (1, 12)") << 12 << 1 << 2 << 6 << 7 << 1 << 1 << "mp_shard 6–11";
        QTest::addRow("(6, 1)") << 6 << 6 << 6 << 1 << 3 << 3 << 0 << "mp_replicate 3 · mp_shard 0";
        QTest::addRow("(2, 32) on 8 GPUs") << 64 << 2 << 8 << 8 << 45 << 5 << 5 << "mp_replicate 1 · mp_shard 8–15";
    }

    void the_model_mesh_is_drawn_as_runs_of_mp_shard() {
        QFETCH(int, world);
        QFETCH(int, mp_replicate);
        QFETCH(int, blocks);
        QFETCH(int, columns);
        QFETCH(int, rank);
        QFETCH(int, block);
        QFETCH(int, column);
        QFETCH(QString, label);
        const auto topology = Topology::from_world(world, 1, 1, ModelMeshSizes{mp_replicate, std::nullopt}).value();
        const GridGeometry g(std::make_shared<const Plan>(Plan::make(topology, 8).value()), GridMesh::model);
        QCOMPARE(g.kind(), GridMesh::model);
        QCOMPARE(QString::fromStdString(g.mesh().name), QStringLiteral("model"));
        QCOMPARE(g.blocks(), blocks);
        QCOMPARE(g.columns(), columns);
        QCOMPARE(g.rows(), 1);
        const CellPosition p = g.position_of(rank);
        QCOMPARE(p.block, block);
        QCOMPARE(p.column, column);
        QCOMPARE(p.row, 0);
        QCOMPARE(g.rank_at(p), std::optional<std::int64_t>(rank));
        QCOMPARE(g.block_label(block), label);
        QCOMPARE(g.axes_text(),
                 QStringLiteral("columns mp_shard (%1 per block) · blocks mp_replicate × mp_shard").arg(columns));
        // Every rank is one cell that hit-tests back to it.
        for (std::int64_t r = 0; r < world; ++r) QCOMPARE(g.hit(g.cell_rect(r).center()), std::optional(r));
    }

    void both_meshes_put_ranks_in_the_same_place() {
        // With ep > 1 the data mesh wraps dp every ep columns: switching meshes only changes the groups.
        const auto plan = make_plan(8, 2, 2, 8);
        const GridGeometry expert(plan, GridMesh::expert), data(plan, GridMesh::data);
        for (std::int64_t r = 0; r < 16; ++r) QCOMPARE(expert.cell_rect(r), data.cell_rect(r));
        QCOMPARE(data.block_label(1), QStringLiteral("dp 2–3"));
        // ep = 1 has no expert mesh: the expert view falls back to the data mesh.
        const GridGeometry fallback(make_plan(16, 1, 1, 8), GridMesh::expert);
        QCOMPARE(fallback.kind(), GridMesh::data);
        QCOMPARE(fallback.columns(), 8);  // one node of dp per block
    }

    void groups_merge_into_runs_data() {
        QTest::addColumn<QString>("dim");
        QTest::addColumn<bool>("expert");
        QTest::addColumn<int>("runs");
        // dp=16, ep=8, rank 13: ep [8..15] one row; efsdp [5, 13] two blocks; data dp: 16 ranks in 2 blocks.
        QTest::addRow("ep") << "ep" << true << 1;
        QTest::addRow("efsdp") << "efsdp" << true << 2;
        QTest::addRow("dp") << "dp" << false << 2;
    }

    void groups_merge_into_runs() {
        QFETCH(QString, dim);
        QFETCH(bool, expert);
        QFETCH(int, runs);
        const GridGeometry g(make_plan(16, 1, 8, 8), expert ? GridMesh::expert : GridMesh::data);
        const auto index = g.mesh().mesh.dim_index(dim.toStdString());
        QVERIFY(index.has_value());
        const auto members = g.mesh().mesh.group_of(13, *index);
        QCOMPARE(static_cast<int>(g.runs(members).size()), runs);
    }

    void runs_cover_exactly_the_members_data() {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<bool>("expert");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<int>("rank");
        QTest::addRow("data dp, every rank") << 1024 << 1 << 8 << false << "dp" << 300;
        QTest::addRow("data dp, cp 2") << 512 << 2 << 4 << false << "dp" << 301;
        QTest::addRow("data cp") << 512 << 2 << 4 << false << "cp" << 301;
        QTest::addRow("expert efsdp") << 512 << 2 << 4 << true << "efsdp" << 77;
        QTest::addRow("expert ep, cp 4") << 64 << 4 << 8 << true << "ep" << 131;
        QTest::addRow("data dp, ep 1, partial block") << 12 << 1 << 1 << false << "dp" << 5;
    }

    // Runs are built from consecutive ranks without dividing per rank: each member's cell must lie in exactly
    // one run and no other cell in any.
    void runs_cover_exactly_the_members() {
        QFETCH(int, dp);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(bool, expert);
        QFETCH(QString, dim);
        QFETCH(int, rank);
        const GridGeometry g(make_plan(dp, cp, ep, 8), expert ? GridMesh::expert : GridMesh::data);
        const auto index = g.mesh().mesh.dim_index(dim.toStdString());
        QVERIFY(index.has_value());
        const auto members = g.mesh().mesh.group_of(rank, *index);
        const std::set<std::int64_t> member_set(members.begin(), members.end());
        const auto runs = g.runs(members);
        for (std::int64_t r = 0; r < g.world(); ++r) {
            const QPointF centre = g.cell_rect(r).center();
            const auto covering =
                std::count_if(runs.begin(), runs.end(), [&](const QRectF& run) { return run.contains(centre); });
            QCOMPARE(covering, member_set.count(r) ? 1 : 0);
        }
    }

    void a_partial_repaint_matches_a_full_paint_data() {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<double>("scale");
        QTest::addColumn<QString>("shown_dim");
        // Scales: tiny cells (blocks merge), small cells whose rank text is wider than the cell, block label
        // chips wider than their block, full-size cells with two lines of text; all groups of a dim.
        QTest::addRow("16384 fit") << 16384 << 8 << 0.1 << QString();
        QTest::addRow("16384 cells of 13 px") << 16384 << 8 << 0.3 << QString();
        QTest::addRow("16384 cells of 18 px, text wider than cells") << 16384 << 8 << 0.4 << QString();
        QTest::addRow("16384 zoom 1") << 16384 << 8 << 1.0 << QString();
        QTest::addRow("512 all efsdp groups") << 512 << 4 << 0.6 << QStringLiteral("efsdp");
    }

    // The on-screen item scrolls its cached base layer on a pan and repaints only the exposed strips: that is
    // right only if painting a strip (clipped to it) gives the pixels a full paint gives there, wherever the
    // strip's edges cut cells, gaps, text and labels.
    void a_partial_repaint_matches_a_full_paint() {
        QFETCH(int, dp);
        QFETCH(int, ep);
        QFETCH(double, scale);
        QFETCH(QString, shown_dim);
        const GridGeometry g(make_plan(dp, 1, ep, 8), GridMesh::expert);
        const GridPainter painter_of_grid(g, GridPalette::light());
        const QSize size(800, 500);
        const GridView view{scale, QPointF(-37.5, -21.5)};
        QImage full(size, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&full);
        painter_of_grid.paint_base(painter, view, QRectF(QPointF(0, 0), QSizeF(size)), shown_dim);
        painter.end();
        std::vector<QRect> strips;
        for (int x = 0; x < size.width(); x += 37) strips.emplace_back(x, 0, 23, size.height());
        for (int y = 0; y < size.height(); y += 29) strips.emplace_back(0, y, size.width(), 17);
        int differing = 0;
        for (const QRect& strip : strips) {
            QImage part(size, QImage::Format_ARGB32_Premultiplied);
            part.fill(Qt::magenta);
            painter.begin(&part);
            painter.setClipRect(strip);
            painter_of_grid.paint_base(painter, view, QRectF(strip), shown_dim);
            painter.end();
            for (int y = strip.top(); y <= strip.bottom(); ++y)
                for (int x = strip.left(); x <= strip.right(); ++x)
                    if (full.pixel(x, y) != part.pixel(x, y)) ++differing;
        }
        QCOMPARE(differing, 0);
    }

    void painting_shows_nodes_and_the_selected_groups() {
        const GridGeometry g(make_plan(16, 1, 8, 8), GridMesh::expert);
        const GridPalette palette = GridPalette::light();
        const GridPainter painter_of_grid(g, palette);
        QImage image(g.content_rect().size().toSize(), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        const QRectF viewport(QPointF(0, 0), g.content_rect().size());
        painter_of_grid.paint_base(painter, GridPainter::whole(1.0), viewport, {});
        painter.end();
        QVERIFY(count_colour(image, palette.node_fills[0]) > 1000);  // node 0
        QVERIFY(count_colour(image, palette.node_fills[1]) > 1000);  // node 1
        QCOMPARE(count_colour(image, dim_style("ep").color), 0);

        painter.begin(&image);
        painter_of_grid.paint_overlay(painter, GridPainter::whole(1.0), viewport, {13, -1});
        painter.end();
        QVERIFY(count_colour(image, palette.selection_fill) > 500);
        QVERIFY(count_colour(image, dim_style("ep").color) > 200);     // frame around ranks 8..15
        QVERIFY(count_colour(image, dim_style("efsdp").color) > 100);  // rings in ranks 5 and 13
    }

    void a_panned_grid_shows_what_a_fresh_paint_shows_data() {
        QTest::addColumn<int>("dx");
        QTest::addColumn<int>("dy");
        QTest::addColumn<int>("moves");
        QTest::addRow("walk right") << 1 << 0 << 24;
        QTest::addRow("walk down") << 0 << 1 << 12;
    }

    // On screen: walking the selection past the edge pans the view by whole pixels, and the item scrolls its
    // cached base layer instead of repainting it. The result must equal a fresh paint of the same view.
    void a_panned_grid_shows_what_a_fresh_paint_shows() {
        QFETCH(int, dx);
        QFETCH(int, dy);
        QFETCH(int, moves);
        PlanController controller;
        controller.form()->setNodes(64);  // 512 ranks, ep 8: at zoom 1 the grid is larger than the window
        QQuickWindow window;
        window.resize(800, 500);
        MeshGridItem item(window.contentItem());
        item.setController(&controller);
        item.setSize(QSizeF(800, 500));
        window.show();
        item.zoomBy(1.0 / item.zoom());
        controller.selection()->setSelectedRank(0);
        (void)window.grabWindow();
        const QRectF first = item.cellRect(0);
        for (int i = 0; i < moves; ++i) {
            item.moveSelection(dx, dy);
            (void)window.grabWindow();  // each step is scrolled from the one before
        }
        QVERIFY(item.cellRect(0) != first);  // the view did pan
        const QImage scrolled = window.grabWindow();
        item.setDark(true);  // throw the cached base layer away ...
        item.setDark(false);
        const QImage fresh = window.grabWindow();  // ... and paint the same view from scratch
        QCOMPARE(scrolled.size(), fresh.size());
        int differing = 0;
        for (int y = 0; y < fresh.height(); ++y)
            for (int x = 0; x < fresh.width(); ++x)
                if (scrolled.pixel(x, y) != fresh.pixel(x, y)) ++differing;
        QCOMPARE(differing, 0);
    }

    void exports_write_png_and_svg() {
        QTemporaryDir dir;
        PlanController controller;
        controller.selection()->setSelectedRank(13);
        MeshGridItem item;
        item.setController(&controller);
        item.setSize(QSizeF(800, 500));
        const QString png = dir.filePath(QStringLiteral("grid.png"));
        const QString svg = dir.filePath(QStringLiteral("grid.svg"));
        QVERIFY(item.savePng(QUrl::fromLocalFile(png)));
        QVERIFY(item.saveSvg(QUrl::fromLocalFile(svg)));
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(count_colour(image, GridPalette::light().node_fills[1]) > 1000);
        QVERIFY(count_colour(image, dim_style("ep").color) > 100);
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("efsdp 1"));                                // block labels are text
        QVERIFY(text.contains(dim_style("ep").color.name().toLatin1()));  // the ep frame
        QCOMPARE(controller.view()->statusText(), QStringLiteral("Saved %1").arg(svg));
        QVERIFY(!item.savePng(QUrl::fromLocalFile(dir.filePath(QStringLiteral("no/such/dir/grid.png")))));
    }
};

QTEST_MAIN(TestGridGeometry)
#include "tst_grid_geometry.moc"
