#include "dim_style.h"

namespace meshscope::ui {

DimStyle dim_style(std::string_view dim) {
    // Mid-tone colours that read on light and dark cells alike; expert_cp and cp share one style because
    // their groups are the same ranks (LlamaFactory's expert_cp groups equal the data mesh's cp groups).
    if (dim == "ep") return {QColor(0xF5, 0x7C, 0x00), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "dp") return {QColor(0xD8, 0x1B, 0x60), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "expert_cp" || dim == "cp")
        return {QColor(0x03, 0x9B, 0xE5), HighlightShape::band, 2.0, 0.0, QStringLiteral("band")};
    if (dim == "efsdp") return {QColor(0x8E, 0x24, 0xAA), HighlightShape::ring, 3.0, 4.0, QStringLiteral("ring")};
    if (dim == "edp") return {QColor(0x43, 0xA0, 0x47), HighlightShape::ring, 2.0, 9.0, QStringLiteral("inner ring")};
    // LlamaFactory's model mesh: shards framed like the other contiguous groups, replicas ringed like efsdp.
    if (dim == "mp_shard") return {QColor(0x00, 0x89, 0x7B), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "mp_replicate")
        return {QColor(0x6D, 0x4C, 0x41), HighlightShape::ring, 3.0, 4.0, QStringLiteral("ring")};
    return {QColor(0x75, 0x75, 0x75), HighlightShape::frame, 2.0, 0.0, QStringLiteral("frame")};
}

}  // namespace meshscope::ui
