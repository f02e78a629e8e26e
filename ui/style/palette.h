// The palette table (core's meshscope/palette.h) for Qt: QColor for the painters, and MeshPalette, the QML singleton
// Theme.qml reads its colours from. Light and dark are two constant sets; Theme.dark picks one.
//
//   import MeshScope.Style
//   color: MeshPalette.dark.stateColors[RankState.Ready]   // or Theme.stateColors[...], as the pages do
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QColor>
#include <QList>
#include <QObject>

class QJSEngine;
class QQmlEngine;

#include "meshscope/monitor/palette.h"

namespace meshscope::ui {

[[nodiscard]] QColor palette_colour(Colour colour, ColourScheme scheme);

// One scheme's colours for QML (constant: a scheme never changes, Theme switches between the two).
class PaletteColors : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PaletteColors belong to MeshPalette")
    Q_PROPERTY(QColor window MEMBER window_ CONSTANT)
    Q_PROPERTY(QColor panel MEMBER panel_ CONSTANT)
    Q_PROPERTY(QColor panelBorder MEMBER panel_border_ CONSTANT)
    Q_PROPERTY(QColor text MEMBER text_ CONSTANT)
    Q_PROPERTY(QColor mutedText MEMBER muted_text_ CONSTANT)
    Q_PROPERTY(QColor accent MEMBER accent_ CONSTANT)
    Q_PROPERTY(QColor accentText MEMBER accent_text_ CONSTANT)
    Q_PROPERTY(QColor error MEMBER error_ CONSTANT)
    Q_PROPERTY(QColor errorBackground MEMBER error_background_ CONSTANT)
    Q_PROPERTY(QColor warning MEMBER warning_ CONSTANT)
    Q_PROPERTY(QColor warningBackground MEMBER warning_background_ CONSTANT)
    Q_PROPERTY(QColor button MEMBER button_ CONSTANT)
    Q_PROPERTY(QColor selection MEMBER selection_ CONSTANT)
    Q_PROPERTY(QColor gridBackground MEMBER grid_background_ CONSTANT)
    Q_PROPERTY(QColor finding MEMBER finding_ CONSTANT)
    Q_PROPERTY(QList<QColor> stateColors MEMBER state_colors_ CONSTANT)  // indexed by RankState.Kind
    // The planner's Cost panel: indexed by a memory row's `part` (CostMemoryModel), and the two links.
    Q_PROPERTY(QList<QColor> memoryColors MEMBER memory_colors_ CONSTANT)
    Q_PROPERTY(QColor commIntraNode MEMBER comm_intra_node_ CONSTANT)
    Q_PROPERTY(QColor commInterNode MEMBER comm_inter_node_ CONSTANT)
    // The teaching mode: the frame around a tour step's anchor, a right answer.
    Q_PROPERTY(QColor tourHighlight MEMBER tour_highlight_ CONSTANT)
    Q_PROPERTY(QColor success MEMBER success_ CONSTANT)
    Q_PROPERTY(QColor successBackground MEMBER success_background_ CONSTANT)
    // The hang map (Live page): where a rank stands when it waits in no collective, and the ring around a root
    // cause's ranks. A waiting rank takes its dim's colour, a dead one stateColors[RankState.Failed]:
    // standingColor(standing, dim) gives any of them by core's names.
    Q_PROPERTY(QColor standingOutsideCollectives MEMBER standing_outside_collectives_ CONSTANT)
    Q_PROPERTY(QColor standingNoRecord MEMBER standing_no_record_ CONSTANT)
    Q_PROPERTY(QColor rootCause MEMBER root_cause_ CONSTANT)

public:
    explicit PaletteColors(ColourScheme scheme, QObject* parent = nullptr);

    // Core's standing_colour: "waiting" and "ep" -> dim-ep, "no_record" -> standing-no-record; an unknown
    // standing (a newer collector's) reads as dim-other.
    [[nodiscard]] Q_INVOKABLE QColor standingColor(const QString& standing, const QString& dim) const;

private:
    QColor window_;
    QColor panel_;
    QColor panel_border_;
    QColor text_;
    QColor muted_text_;
    QColor accent_;
    QColor accent_text_;
    QColor error_;
    QColor error_background_;
    QColor warning_;
    QColor warning_background_;
    QColor button_;
    QColor selection_;
    QColor grid_background_;
    QColor finding_;
    QList<QColor> state_colors_;
    QList<QColor> memory_colors_;
    QColor comm_intra_node_;
    QColor comm_inter_node_;
    QColor tour_highlight_;
    QColor success_;
    QColor success_background_;
    QColor standing_outside_collectives_;
    QColor standing_no_record_;
    QColor root_cause_;
    ColourScheme scheme_;
};

// One instance for the process, owned by C++: an engine tearing down must not delete the colours while
// Theme's bindings still read them.
class MeshPalette : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(meshscope::ui::PaletteColors* light READ light CONSTANT)
    Q_PROPERTY(meshscope::ui::PaletteColors* dark READ dark CONSTANT)

public:
    [[nodiscard]] static MeshPalette* create(QQmlEngine* qml, QJSEngine* js);
    [[nodiscard]] static MeshPalette& instance();

    [[nodiscard]] PaletteColors* light() { return &light_; }
    [[nodiscard]] PaletteColors* dark() { return &dark_; }

private:
    MeshPalette();

    PaletteColors light_;
    PaletteColors dark_;
};

}  // namespace meshscope::ui
