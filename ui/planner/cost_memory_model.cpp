#include "cost_memory_model.h"

#include <algorithm>

#include "meshscope/monitor/palette.h"

namespace meshscope::ui {

static_assert(memory_part_count == memory_part_colour_count, "one palette colour per part of the memory bar");

QString gib_text(double bytes) {
    return QStringLiteral("%1 GiB").arg(bytes / (1024.0 * 1024.0 * 1024.0), 0, 'f', 1);
}

int CostMemoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
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

double CostMemoryModel::bytes(MemoryPart part) const {
    switch (part) {
        case MemoryPart::params: return memory_.params;
        case MemoryPart::grads: return memory_.grads;
        case MemoryPart::optimizer: return memory_.optimizer;
        case MemoryPart::activations: return memory_.activations;
        case MemoryPart::all_to_all: return memory_.all_to_all;
        case MemoryPart::fsdp_buffers: return memory_.fsdp_buffers;
    }
    return 0;
}

double CostMemoryModel::scale() const {
    return std::max(memory_.total(), memory_.usable);
}

double CostMemoryModel::usableFraction() const {
    return scale() > 0 ? memory_.usable / scale() : 0.0;
}

QVariant CostMemoryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto part = static_cast<MemoryPart>(index.row());
    const double full = scale();
    switch (role) {
        case PartRole: return index.row();
        case Qt::DisplayRole:
        case NameRole: return part_name(part);
        case BytesRole: return bytes(part);
        case TextRole: return gib_text(bytes(part));
        case StartRole: {
            double before = 0;
            for (int p = 0; p < index.row(); ++p) before += bytes(static_cast<MemoryPart>(p));
            return full > 0 ? before / full : 0.0;
        }
        case FractionRole: return full > 0 ? bytes(part) / full : 0.0;
        default: return {};
    }
}

QHash<int, QByteArray> CostMemoryModel::roleNames() const {
    return {{PartRole, "part"}, {NameRole, "name"},   {BytesRole, "bytes"},
            {TextRole, "text"}, {StartRole, "start"}, {FractionRole, "fraction"}};
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
    const int before = count();
    beginResetModel();
    shown_ = true;
    memory_ = memory;
    endResetModel();
    if (before != count()) emit countChanged();
    emit memoryChanged();
}

void CostMemoryModel::clear() {
    if (!shown_) return;
    beginResetModel();
    shown_ = false;
    memory_ = {};
    endResetModel();
    emit countChanged();
    emit memoryChanged();
}

}  // namespace meshscope::ui
