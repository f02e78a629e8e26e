#include "grid_geometry.h"

#include <algorithm>
#include <cmath>

#include "meshscope/mesh/model_mesh.h"
#include "meshscope/mesh/plan_grid.h"

namespace meshscope::ui {

namespace {
using M = GridMetrics;

double span_of(std::int64_t count, double size, double gap) {
    return count <= 0 ? 0.0 : static_cast<double>(count) * size + static_cast<double>(count - 1) * gap;
}

// How many blocks go in one row of blocks so the whole grid is about as wide as `aspect` times its height.
// Divisors of the block count are preferred: full rows read better than a ragged last row.
std::int64_t choose_block_columns(std::int64_t blocks, double block_width, double block_height, double aspect) {
    std::int64_t best = 1;
    double best_cost = 1e300;
    for (std::int64_t k = 1; k <= blocks; ++k) {
        const std::int64_t rows = (blocks + k - 1) / k;
        const double w = span_of(k, block_width, M::block_gap);
        const double h = span_of(rows, block_height, M::block_gap);
        double cost = std::abs(std::log((w / h) / aspect));
        if (blocks % k != 0) cost += 0.35;
        if (cost < best_cost) {
            best_cost = cost;
            best = k;
        }
    }
    return best;
}
}  // namespace

GridGeometry::GridGeometry(std::shared_ptr<const Plan> plan, GridMesh mesh, double target_aspect)
    : plan_(std::move(plan)) {
    const Topology& t = plan_->topology();
    world_ = t.world();
    cp_ = t.cp;
    // How many blocks, columns and rows: core's rule, which the web planner gets from the collector too.
    const PlanMesh* expert = plan_->mesh("expert");
    if (mesh == GridMesh::model) {
        kind_ = GridMesh::model;
        mesh_ = plan_->mesh(model_mesh_name);
        cp_ = 1;
    } else {
        kind_ = mesh == GridMesh::expert && expert != nullptr ? GridMesh::expert : GridMesh::data;
        mesh_ = kind_ == GridMesh::expert ? expert : plan_->mesh("data");
    }
    const PlanGrid grid = plan_grid(*plan_, mesh_->name);
    columns_ = grid.columns;
    rows_ = grid.rows;
    blocks_ = grid.blocks;
    block_width_ = span_of(columns_, M::cell, M::cell_gap);
    block_height_ = M::label_height + span_of(rows_, M::cell, M::cell_gap);
    block_columns_ = choose_block_columns(blocks_, block_width_, block_height_, target_aspect);
    content_ = QRectF(0, 0, 2 * M::margin + span_of(block_columns_, block_width_, M::block_gap),
                      2 * M::margin + span_of(block_rows(), block_height_, M::block_gap));
}

CellPosition GridGeometry::position_of(std::int64_t rank) const noexcept {
    const std::int64_t line = rank / cp_;  // the block-major column index (ep or dp)
    return {line / columns_, line % columns_, rank % cp_};
}

std::optional<std::int64_t> GridGeometry::rank_at(const CellPosition& p) const noexcept {
    if (p.block < 0 || p.block >= blocks_ || p.column < 0 || p.column >= columns_ || p.row < 0 || p.row >= rows_)
        return std::nullopt;
    const std::int64_t rank = (p.block * columns_ + p.column) * cp_ + p.row;
    if (rank >= world_) return std::nullopt;
    return rank;
}

QPointF GridGeometry::block_origin(std::int64_t block) const noexcept {
    const auto bx = static_cast<double>(block % block_columns_);
    const auto by = static_cast<double>(block / block_columns_);
    return {M::margin + bx * (block_width_ + M::block_gap), M::margin + by * (block_height_ + M::block_gap)};
}

QRectF GridGeometry::cell_rect(std::int64_t rank) const noexcept {
    const CellPosition p = position_of(rank);
    const QPointF o = block_origin(p.block);
    return {o.x() + static_cast<double>(p.column) * (M::cell + M::cell_gap),
            o.y() + M::label_height + static_cast<double>(p.row) * (M::cell + M::cell_gap), M::cell, M::cell};
}

QRectF GridGeometry::block_rect(std::int64_t block) const noexcept {
    const QPointF o = block_origin(block);
    return {o.x(), o.y() + M::label_height, block_width_, block_height_ - M::label_height};
}

QRectF GridGeometry::block_label_rect(std::int64_t block) const noexcept {
    const QPointF o = block_origin(block);
    return {o.x(), o.y(), block_width_, M::label_height};
}

std::int64_t GridGeometry::cells_in_block(std::int64_t block) const noexcept {
    const std::int64_t first = block * columns_ * cp_;
    return std::clamp<std::int64_t>(world_ - first, 0, columns_ * cp_);
}

std::optional<std::int64_t> GridGeometry::hit(QPointF point) const noexcept {
    const double x = point.x() - M::margin;
    const double y = point.y() - M::margin;
    if (x < 0 || y < 0) return std::nullopt;
    const auto bx = static_cast<std::int64_t>(x / (block_width_ + M::block_gap));
    const auto by = static_cast<std::int64_t>(y / (block_height_ + M::block_gap));
    if (bx >= block_columns_) return std::nullopt;
    const double in_x = x - static_cast<double>(bx) * (block_width_ + M::block_gap);
    const double in_y = y - static_cast<double>(by) * (block_height_ + M::block_gap) - M::label_height;
    if (in_x < 0 || in_y < 0) return std::nullopt;
    const auto column = static_cast<std::int64_t>(in_x / (M::cell + M::cell_gap));
    const auto row = static_cast<std::int64_t>(in_y / (M::cell + M::cell_gap));
    if (in_x - static_cast<double>(column) * (M::cell + M::cell_gap) > M::cell) return std::nullopt;
    if (in_y - static_cast<double>(row) * (M::cell + M::cell_gap) > M::cell) return std::nullopt;
    return rank_at({by * block_columns_ + bx, column, row});
}

std::vector<std::int64_t> GridGeometry::blocks_in(const QRectF& content) const {
    std::vector<std::int64_t> out;
    const double pitch_x = block_width_ + M::block_gap;
    const double pitch_y = block_height_ + M::block_gap;
    const auto clamp_index = [](double v, std::int64_t hi) {
        return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(v)), 0, hi);
    };
    const std::int64_t x0 = clamp_index((content.left() - M::margin) / pitch_x, block_columns_ - 1);
    const std::int64_t x1 = clamp_index((content.right() - M::margin) / pitch_x, block_columns_ - 1);
    const std::int64_t y0 = clamp_index((content.top() - M::margin) / pitch_y, block_rows() - 1);
    const std::int64_t y1 = clamp_index((content.bottom() - M::margin) / pitch_y, block_rows() - 1);
    for (std::int64_t by = y0; by <= y1; ++by)
        for (std::int64_t bx = x0; bx <= x1; ++bx) {
            const std::int64_t block = by * block_columns_ + bx;
            if (block < blocks_ && block_rect(block).united(block_label_rect(block)).intersects(content))
                out.push_back(block);
        }
    return out;
}

std::int64_t GridGeometry::neighbour(std::int64_t rank, int dx, int dy) const noexcept {
    const CellPosition p = position_of(rank);
    std::int64_t gx = (p.block % block_columns_) * columns_ + p.column;
    std::int64_t gy = (p.block / block_columns_) * rows_ + p.row;
    const std::int64_t width = block_columns_ * columns_;
    const std::int64_t height = block_rows() * rows_;
    for (;;) {
        gx += dx;
        gy += dy;
        if (gx < 0 || gy < 0 || gx >= width || gy >= height || (dx == 0 && dy == 0)) return rank;
        const CellPosition q{(gy / rows_) * block_columns_ + gx / columns_, gx % columns_, gy % rows_};
        if (const auto r = rank_at(q)) return *r;
    }
}

QString GridGeometry::block_label(std::int64_t block) const {
    if (kind_ == GridMesh::model) {
        const Topology& t = plan_->topology();
        const std::int64_t first = block * columns_;
        const std::int64_t shard = first % t.mp_shard;
        const QString shards = columns_ == 1 ? QStringLiteral("mp_shard %1").arg(shard)
                                             : QStringLiteral("mp_shard %1–%2").arg(shard).arg(shard + columns_ - 1);
        return t.mp_replicate > 1 ? QStringLiteral("mp_replicate %1 · %2").arg(first / t.mp_shard).arg(shards) : shards;
    }
    if (kind_ == GridMesh::expert) {
        const Topology& t = plan_->topology();
        const QString efsdp = QStringLiteral("efsdp %1").arg(block % t.efsdp);
        return t.edp > 1 ? QStringLiteral("edp %1 · %2").arg(block / t.efsdp).arg(efsdp) : efsdp;
    }
    const std::int64_t first = block * columns_;
    const std::int64_t last = std::min(first + columns_, plan_->topology().dp) - 1;
    return first == last ? QStringLiteral("dp %1").arg(first) : QStringLiteral("dp %1–%2").arg(first).arg(last);
}

QString GridGeometry::axes_text() const {
    if (kind_ == GridMesh::model)
        return QStringLiteral("columns mp_shard (%1 per block) · blocks mp_replicate × mp_shard").arg(columns_);
    if (kind_ == GridMesh::expert)
        return plan_->topology().edp > 1 ? QStringLiteral("blocks edp × efsdp · columns ep · rows expert_cp")
                                         : QStringLiteral("blocks efsdp · columns ep · rows expert_cp");
    return QStringLiteral("columns dp (%1 per block) · rows cp").arg(columns_);
}

std::vector<QRectF> GridGeometry::runs(std::span<const std::int64_t> ranks) const {
    std::vector<QRectF> out;
    std::int64_t run_block = -1;
    std::int64_t origin_block = -1;
    QPointF origin;
    std::int64_t previous = -2;
    CellPosition p;
    for (std::int64_t rank : ranks) {
        // cell_rect without its divisions per rank: a group can be all 65,536 ranks, merged every frame, and
        // its ranks are mostly consecutive.
        if (rank == previous + 1) {
            if (++p.row == rows_) {
                p.row = 0;
                if (++p.column == columns_) {
                    p.column = 0;
                    ++p.block;
                }
            }
        } else {
            p = position_of(rank);
        }
        previous = rank;
        const std::int64_t block = p.block;
        if (block != origin_block) {
            origin = block_origin(block);
            origin_block = block;
        }
        const QRectF r(origin.x() + static_cast<double>(p.column) * (M::cell + M::cell_gap),
                       origin.y() + M::label_height + static_cast<double>(p.row) * (M::cell + M::cell_gap), M::cell,
                       M::cell);
        if (!out.empty() && block == run_block) {
            QRectF& last = out.back();
            const auto near = [](double a, double b) { return std::abs(a - b) < 0.5; };
            const bool right = near(last.top(), r.top()) && near(last.height(), r.height()) &&
                               near(last.right() + M::cell_gap, r.left());
            const bool below = near(last.left(), r.left()) && near(last.width(), r.width()) &&
                               near(last.bottom() + M::cell_gap, r.top());
            if (right || below) {
                last = last.united(r);
                continue;
            }
        }
        out.push_back(r);
        run_block = block;
    }
    return out;
}

}  // namespace meshscope::ui
