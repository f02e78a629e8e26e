// CostMemoryModel: one layout's memory per GPU, one row per part (parameters, gradients, optimizer state,
// activations, all-to-all buffers, FSDP buffers), each with where its segment starts and how wide it is on a bar
// whose full width is the larger of the total and the usable memory, so the usable mark always lies on the bar.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QString>

#include <cstddef>

#include "meshscope/cost/memory.h"
#include "row_list_model.h"

namespace meshscope::ui {

// The parts in the bar's order; a part's value indexes the palette's memory colours (memory_part_colour).
enum class MemoryPart { params, grads, optimizer, activations, all_to_all, fsdp_buffers };
inline constexpr std::size_t memory_part_count = 6;

struct MemoryPartRow {
    MemoryPart part = MemoryPart::params;
    double bytes = 0;
    double start = 0;     // where its segment starts, a fraction of the bar
    double fraction = 0;  // its share of the bar
};

class CostMemoryModel : public MESHSCOPE_ROW_LIST_MODEL(MemoryPartRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("CostMemoryModel belongs to a PlanController")
    Q_PROPERTY(double totalBytes READ totalBytes NOTIFY memoryChanged)
    Q_PROPERTY(double usableBytes READ usableBytes NOTIFY memoryChanged)
    Q_PROPERTY(double usableFraction READ usableFraction NOTIFY memoryChanged)  // the usable mark on the bar
    Q_PROPERTY(bool fits READ fits NOTIFY memoryChanged)
    // "61.2 GiB of 126.9 GiB usable"; "fits, 65.7 GiB headroom" / "does not fit, 4.1 GiB over"
    Q_PROPERTY(QString totalText READ totalText NOTIFY memoryChanged)
    Q_PROPERTY(QString fitText READ fitText NOTIFY memoryChanged)

public:
    enum Role {
        PartRole = Qt::UserRole + 1,  // a MemoryPart value: the index of its colour
        NameRole,                     // "parameters"
        BytesRole,
        TextRole,      // "12.3 GiB"
        StartRole,     // where its segment starts, a fraction of the bar
        FractionRole,  // its share of the bar
    };
    Q_ENUM(Role)

    explicit CostMemoryModel(QObject* parent = nullptr);

    [[nodiscard]] double totalBytes() const { return memory_.total(); }
    [[nodiscard]] double usableBytes() const { return memory_.usable; }
    [[nodiscard]] double usableFraction() const;
    [[nodiscard]] bool fits() const { return memory_.fits(); }
    [[nodiscard]] QString totalText() const;
    [[nodiscard]] QString fitText() const;

    [[nodiscard]] static QString part_name(MemoryPart part);
    [[nodiscard]] double bytes(MemoryPart part) const;

    void set(const cost::MemoryBreakdown& memory);
    void clear();  // no rows: no model chosen

signals:
    void memoryChanged();

private:
    bool shown_ = false;
    cost::MemoryBreakdown memory_;
};

// "12.3 GiB": bytes in GiB with one decimal, as `meshscope advise` prints them.
[[nodiscard]] QString gib_text(double bytes);

}  // namespace meshscope::ui
