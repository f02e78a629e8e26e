// GridGeometry: where every rank of one mesh of a Plan sits in the planner's grid, in content units.
// One layout serves the on-screen item, the PNG and the SVG export, and keyboard navigation.
//
// Both meshes share one shape: a row of "blocks" wrapped into a block grid; each block is `columns` x `rows`
// cells with rank = (block * columns + column) * cp + row. For the expert mesh a block is one (edp, efsdp)
// pair, columns are ep and rows are expert_cp; for the data mesh columns are dp (wrapped every `columns`) and
// rows are cp. With ep > 1 the data mesh wraps dp every ep columns, so switching meshes keeps every rank in
// place and only the groups change (flatten(efsdp, ep) is the dp group). LlamaFactory's model mesh
// (mp_replicate, mp_shard) has no cp rows: one row of ranks per block, each block a run of one mp_shard
// group (a node's worth, or the whole group when smaller), blocks in rank order.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "meshscope/mesh/plan.h"

namespace meshscope::ui {

enum class GridMesh { expert, data, model };

// Sizes in content units (one unit is one device-independent pixel at zoom 1).
struct GridMetrics {
    static constexpr double cell = 44.0;
    static constexpr double cell_gap = 3.0;
    static constexpr double block_gap = 14.0;
    static constexpr double label_height = 20.0;  // room above each block for its label at zoom 1
    static constexpr double margin = 12.0;
};

// A cell's place in the global cell lattice (blocks laid side by side, rows of blocks stacked).
struct CellPosition {
    std::int64_t block = 0;
    std::int64_t column = 0;
    std::int64_t row = 0;
};

class GridGeometry {
public:
    // The expert mesh falls back to the data mesh when the plan has none (ep = 1).
    GridGeometry(std::shared_ptr<const Plan> plan, GridMesh mesh, double target_aspect = 1.6);

    [[nodiscard]] const Plan& plan() const noexcept { return *plan_; }
    [[nodiscard]] const PlanMesh& mesh() const noexcept { return *mesh_; }
    [[nodiscard]] GridMesh kind() const noexcept { return kind_; }
    [[nodiscard]] std::int64_t world() const noexcept { return world_; }

    [[nodiscard]] std::int64_t columns() const noexcept { return columns_; }  // cells per block row
    [[nodiscard]] std::int64_t rows() const noexcept { return rows_; }        // cells per block column
    [[nodiscard]] std::int64_t blocks() const noexcept { return blocks_; }
    [[nodiscard]] std::int64_t block_columns() const noexcept { return block_columns_; }
    [[nodiscard]] std::int64_t block_rows() const noexcept { return (blocks_ + block_columns_ - 1) / block_columns_; }
    [[nodiscard]] QRectF content_rect() const noexcept { return content_; }

    [[nodiscard]] CellPosition position_of(std::int64_t rank) const noexcept;
    // The rank at a block/column/row, or nullopt where a partial last block has no rank.
    [[nodiscard]] std::optional<std::int64_t> rank_at(const CellPosition& position) const noexcept;
    [[nodiscard]] QRectF cell_rect(std::int64_t rank) const noexcept;
    [[nodiscard]] QRectF block_rect(std::int64_t block) const noexcept;  // cells only, without the label
    [[nodiscard]] QRectF block_label_rect(std::int64_t block) const noexcept;
    [[nodiscard]] std::int64_t cells_in_block(std::int64_t block) const noexcept;
    // The rank whose cell contains a content point (gaps hit nothing).
    [[nodiscard]] std::optional<std::int64_t> hit(QPointF content_point) const noexcept;
    // The blocks whose rectangles meet a content rectangle, in order (for drawing only what is visible).
    [[nodiscard]] std::vector<std::int64_t> blocks_in(const QRectF& content) const;

    // The next rank on screen in a direction (dx, dy in {-1, 0, 1}), moving across block boundaries and
    // skipping holes; the rank itself at the edge of the grid.
    [[nodiscard]] std::int64_t neighbour(std::int64_t rank, int dx, int dy) const noexcept;

    // "efsdp 3", "edp 1 · efsdp 3", "dp 8–15".
    [[nodiscard]] QString block_label(std::int64_t block) const;
    // What columns, rows and blocks mean: "columns ep · rows expert_cp · blocks efsdp".
    [[nodiscard]] QString axes_text() const;

    // A group's cells merged into as few rectangles as possible (runs of adjacent cells of one block).
    [[nodiscard]] std::vector<QRectF> runs(std::span<const std::int64_t> ranks) const;

private:
    [[nodiscard]] QPointF block_origin(std::int64_t block) const noexcept;

    std::shared_ptr<const Plan> plan_;
    const PlanMesh* mesh_ = nullptr;
    GridMesh kind_ = GridMesh::data;
    std::int64_t world_ = 0;
    std::int64_t cp_ = 1;
    std::int64_t columns_ = 1;
    std::int64_t rows_ = 1;
    std::int64_t blocks_ = 1;
    std::int64_t block_columns_ = 1;
    double block_width_ = 0;
    double block_height_ = 0;  // label + cells
    QRectF content_;
};

}  // namespace meshscope::ui
