#include "cost_memory_model.h"

#include <algorithm>

#include "meshscope/monitor/palette.h"

namespace meshscope::ui {

static_assert(memory_part_count == memory_part_colour_count, "one palette colour per part of the memory bar");

QString gib_text(double bytes) {
    return QStringLiteral("%1 GiB").arg(bytes / (1024.0 * 1024.0 * 1024.0), 0, 'f', 1);
}

QString CostMemoryModel::part_name(MemoryPart part) {
    switch (part) {
        case MemoryPart::params: return QStringLiteral("parameters");
        case MemoryPart::grads: return QStringLiteral("gradients");
        case MemoryPart::optimizer: return QStringLiteral("optimizer");
        case MemoryPart::activations: return QStringLiteral("activations");
        case MemoryPart::all_to_all: return QStringLiteral("all-to-all buffers");
        case MemoryPart::fsdp_buffers: return QStringLiteral("FSDP buffers");
    }
    return {};
}

namespace {
double bytes_of(const cost::MemoryBreakdown& memory, MemoryPart part) {
    switch (part) {
        case MemoryPart::params: return memory.params;
        case MemoryPart::grads: return memory.grads;
        case MemoryPart::optimizer: return memory.optimizer;
        case MemoryPart::activations: return memory.activations;
        case MemoryPart::all_to_all: return memory.all_to_all;
        case MemoryPart::fsdp_buffers: return memory.fsdp_buffers;
    }
    return 0;
}

// The bar's full width: the larger of the total and the usable memory.
double scale_of(const cost::MemoryBreakdown& memory) {
    return std::max(memory.total(), memory.usable);
}

using R = MemoryPartRow;
constexpr RowRole<R> roles[] = {
    {CostMemoryModel::PartRole, "part", [](const R& r) -> QVariant { return static_cast<int>(r.part); }},
    {CostMemoryModel::NameRole, "name", [](const R& r) -> QVariant { return CostMemoryModel::part_name(r.part); }},
    {CostMemoryModel::BytesRole, "bytes", [](const R& r) -> QVariant { return r.bytes; }},
    {CostMemoryModel::TextRole, "text", [](const R& r) -> QVariant { return gib_text(r.bytes); }},
    {CostMemoryModel::StartRole, "start", [](const R& r) -> QVariant { return r.start; }},
    {CostMemoryModel::FractionRole, "fraction", [](const R& r) -> QVariant { return r.fraction; }},
};
static_assert(roles_in_order(roles));
}  // namespace

CostMemoryModel::CostMemoryModel(QObject* parent) : RowListModel(roles, NameRole, parent) {}

double CostMemoryModel::bytes(MemoryPart part) const {
    return bytes_of(memory_, part);
}

double CostMemoryModel::usableFraction() const {
    const double full = scale_of(memory_);
    return full > 0 ? memory_.usable / full : 0.0;
}

QString CostMemoryModel::totalText() const {
    if (!shown_) return {};
    return QStringLiteral("%1 of %2 usable").arg(gib_text(memory_.total()), gib_text(memory_.usable));
}

QString CostMemoryModel::fitText() const {
    if (!shown_) return {};
    return memory_.fits() ? QStringLiteral("fits, %1 headroom").arg(gib_text(memory_.headroom()))
                          : QStringLiteral("does not fit, %1 over").arg(gib_text(-memory_.headroom()));
}

void CostMemoryModel::set(const cost::MemoryBreakdown& memory) {
    const double full = scale_of(memory);
    std::vector<MemoryPartRow> rows;
    double before = 0;
    for (std::size_t p = 0; p < memory_part_count; ++p) {
        const auto part = static_cast<MemoryPart>(p);
        const double bytes = bytes_of(memory, part);
        rows.push_back({part, bytes, full > 0 ? before / full : 0.0, full > 0 ? bytes / full : 0.0});
        before += bytes;
    }
    setRows(std::move(rows), [&] {
        shown_ = true;
        memory_ = memory;
    });
    emit memoryChanged();
}

void CostMemoryModel::clear() {
    if (!shown_) return;
    setRows({}, [&] {
        shown_ = false;
        memory_ = {};
    });
    emit memoryChanged();
}

}  // namespace meshscope::ui
