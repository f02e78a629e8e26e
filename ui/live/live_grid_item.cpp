#include "live_grid_item.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

#include "live_enums.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::ui {

namespace {
// The plan whose grid the live job is drawn on: its own topology when that fits its world, else its ranks
// as a data mesh of dp = world (rows of one node each).
std::shared_ptr<const Plan> plan_for(const LiveView::GridLayout& layout) {
    if (layout.world <= 0) return nullptr;
    const std::int64_t gpus = std::max<std::int64_t>(1, layout.gpus_per_node);
    if (layout.topology) {
        if (auto t = Topology::make(layout.topology->dp, layout.topology->cp, layout.topology->ep))
            if (auto plan = Plan::make(t.value(), gpus)) return std::make_shared<const Plan>(std::move(plan).value());
    }
    if (auto t = Topology::make(layout.world, 1, 1))
        if (auto plan = Plan::make(t.value(), gpus)) return std::make_shared<const Plan>(std::move(plan).value());
    return nullptr;
}

QColor faded(QColor color, const QColor& background, double keep) {
    return QColor::fromRgbF(color.redF() * keep + background.redF() * (1 - keep),
                            color.greenF() * keep + background.greenF() * (1 - keep),
                            color.blueF() * keep + background.blueF() * (1 - keep));
}
}  // namespace

LiveGridItem::LiveGridItem(QQuickItem* parent) : GridItem(parent) {}

void LiveGridItem::setSession(LiveSession* session) {
    if (session == session_) return;
    if (session_) {
        disconnect(session_, nullptr, this, nullptr);
        disconnect(session_->view(), nullptr, this, nullptr);
    }
    session_ = session;
    if (session_) {
        connect(session_->view(), &LiveView::layoutChanged, this, &LiveGridItem::relayout);
        connect(session_, &LiveSession::gridChanged, this, &QQuickItem::update);
    }
    relayout();
    emit sessionChanged();
}

std::unique_ptr<GridGeometry> LiveGridItem::make_geometry(double aspect) const {
    if (!session_) return nullptr;
    auto plan = plan_for(session_->view()->gridLayout());
    return plan ? std::make_unique<GridGeometry>(std::move(plan), GridMesh::expert, aspect) : nullptr;
}

QString LiveGridItem::hover_text(int rank) const {
    const RankRow* r = session_ ? session_->view()->rankRows().find(rank) : nullptr;
    if (!r) return tr("rank %1").arg(rank);
    QStringList parts{tr("rank %1").arg(r->rank), name_of(r->state)};
    if (!r->host.isEmpty()) parts << r->host;
    if (r->phase) parts << name_of(*r->phase);
    if (!r->findings.isEmpty()) parts << r->findings.join(QStringLiteral(", "));
    if (r->position && session_->view()->hangSummary().active()) {
        // Where it stands, in core's words: "waiting · ep group 3 [12, 13, 14, 15] · seq 2 · all_to_all".
        const HangPosition& p = *r->position;
        parts << QString::fromStdString(std::string(to_string(p.standing)));
        if (!p.label.empty()) parts << QString::fromStdString(p.label);
        if (p.seq > 0) parts << tr("seq %1").arg(p.seq);
        if (!p.op.empty()) parts << QString::fromStdString(p.op);
        if (p.root_cause) parts << tr("root cause");
    }
    return parts.join(QStringLiteral(" · "));
}

void LiveGridItem::mousePressEvent(QMouseEvent* event) {
    const int rank = rankAt(event->position().x(), event->position().y());
    if (session_) session_->selection()->selectRank(rank);
    if (rank >= 0) emit rankClicked(rank);
    event->accept();
}

QImage LiveGridItem::paint_frame(QSize pixels, double dpr) {
    QImage frame(pixels, QImage::Format_ARGB32_Premultiplied);
    frame.setDevicePixelRatio(dpr);
    QPainter painter(&frame);
    paint(painter);
    painter.end();
    return frame;
}

// long: one paint pass over the grid (cells, blocks, labels, highlights) sharing the painter's state and the view's
// scale
void LiveGridItem::paint(QPainter& painter) const {
    const LivePalette colors = palette();
    painter.fillRect(QRectF(0, 0, width(), height()), colors.background);
    if (!geometry() || !session_) return;
    painter.setRenderHint(QPainter::Antialiasing, true);
    const RanksModel& ranks = session_->view()->rankRows();
    const RankFilterModel& filter = session_->view()->rankFilter();
    // A job whose records show a hang: ranks with a position take their standing's colour, not their state's.
    const bool post_mortem = session_->view()->hangSummary().active();
    std::vector<std::int64_t> root_causes;
    const bool filtering = filter.active();
    const QList<int> highlighted = session_->selection()->highlightedRanks();
    const bool highlighting = session_->selection()->selectedFinding() >= 0;
    const double cell = GridMetrics::cell * view().scale;
    const int hovered = hoveredRank();
    const bool rounded = cell >= 8;
    const bool numbers = cell >= 20;

    // Block labels ("efsdp 3") when there is room for them.
    if (cell >= 14) {
        QFont font = painter.font();
        font.setPixelSize(11);
        painter.setFont(font);
        painter.setPen(colors.muted_text);
        for (std::int64_t b = 0; b < geometry()->blocks(); ++b)
            painter.drawText(view().to_screen(geometry()->block_label_rect(b)), Qt::AlignLeft | Qt::AlignVCenter,
                             geometry()->block_label(b));
    }
    QFont number_font = painter.font();
    number_font.setPixelSize(std::clamp(static_cast<int>(cell * 0.32), 8, 12));
    painter.setFont(number_font);

    const std::int64_t world = geometry()->world();
    for (std::int64_t rank = 0; rank < world; ++rank) {
        const QRectF rect = view().to_screen(geometry()->cell_rect(rank));
        const RankRow* row = ranks.find(static_cast<int>(rank));
        const RankStateKind state = row ? row->state : RankStateKind::pending;
        const HangPosition* position = post_mortem && row && row->position ? &*row->position : nullptr;
        if (position && position->root_cause) root_causes.push_back(rank);
        const QColor own = position ? colors.standing(position->standing, position->dim) : colors.state(state);
        double keep = 1.0;
        if (filtering && (!row || !filter.matches(*row)))
            keep = 0.18;
        else if (highlighting && !std::binary_search(highlighted.begin(), highlighted.end(), static_cast<int>(rank)))
            keep = 0.35;
        const QColor fill = keep < 1 ? faded(own, colors.background, keep) : own;
        painter.setPen(Qt::NoPen);
        painter.setBrush(fill);
        if (rounded)
            painter.drawRoundedRect(rect, 3, 3);
        else
            painter.fillRect(rect, fill);
        if (row && !row->findings.isEmpty()) {
            // A triangle in the top-right corner: visible at any state colour and any cell size.
            const double s = std::max(3.0, std::min(rect.width(), rect.height()) * 0.42);
            QPainterPath mark;
            mark.moveTo(rect.topRight());
            mark.lineTo(rect.topRight() + QPointF(-s, 0));
            mark.lineTo(rect.topRight() + QPointF(0, s));
            mark.closeSubpath();
            painter.fillPath(mark, keep < 1 ? faded(colors.finding, colors.background, keep) : colors.finding);
        }
        if (numbers) {
            // Dark text on light fills, light text on dark ones (pending in the dark theme).
            const QColor ink = fill.lightnessF() < 0.4 ? colors.ink_on_dark : colors.ink_on_light;
            painter.setPen(keep < 1 ? faded(ink, colors.background, std::min(1.0, keep + 0.2)) : ink);
            painter.drawText(rect, Qt::AlignCenter, QString::number(rank));
        }
    }
    // Outlines last, so neighbours never paint over them. The root cause's ring sits outside the finding's
    // outline and the selection's.
    painter.setBrush(Qt::NoBrush);
    if (!root_causes.empty()) {
        // Outside the selected rank's outline (2.5 px out), so a selected root cause shows both.
        const double width = std::clamp(cell * 0.07, 2.0, 3.0);
        const double out = 3.5 + width / 2;
        painter.setPen(QPen(colors.root_cause, width));
        for (const std::int64_t rank : root_causes)
            painter.drawRoundedRect(view().to_screen(geometry()->cell_rect(rank)).adjusted(-out, -out, out, out), 6, 6);
    }
    if (highlighting) {
        painter.setPen(QPen(colors.highlight, std::clamp(cell * 0.08, 1.5, 3.0)));
        for (int rank : highlighted)
            if (rank >= 0 && rank < world)
                painter.drawRoundedRect(view().to_screen(geometry()->cell_rect(rank)).adjusted(-1.5, -1.5, 1.5, 1.5), 4,
                                        4);
    }
    const int selected = session_->selection()->selectedRank();
    if (selected >= 0 && selected < world) {
        painter.setPen(QPen(colors.selection, 2.0));
        painter.drawRoundedRect(view().to_screen(geometry()->cell_rect(selected)).adjusted(-2.5, -2.5, 2.5, 2.5), 4, 4);
    }
    if (hovered >= 0 && hovered < world && hovered != selected) {
        painter.setPen(QPen(colors.muted_text, 1.0));
        painter.drawRoundedRect(view().to_screen(geometry()->cell_rect(hovered)).adjusted(-1.5, -1.5, 1.5, 1.5), 4, 4);
    }
}

}  // namespace meshscope::ui
