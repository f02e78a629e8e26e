// CostForm: what the planner's Cost panel needs besides the layout: a model preset ("none" shows no cost), the
// hardware and network, and the training step (sequence, micro-batch, micro-batches per step, recomputation).
// Names and values are core's (meshscope/cost): any value may be set, and core's CostRequest judges it, with its exact
// message and the input it is about.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <optional>

#include "meshscope/cost/cost_request.h"

class QSettings;

namespace meshscope::ui {

class CostForm : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("CostForm belongs to a PlanController")

    Q_PROPERTY(QString model READ model WRITE setModel NOTIFY inputsChanged)  // a preset name or "none"
    Q_PROPERTY(QString hardware READ hardware WRITE setHardware NOTIFY inputsChanged)
    Q_PROPERTY(QString network READ network WRITE setNetwork NOTIFY inputsChanged)
    Q_PROPERTY(int seq READ seq WRITE setSeq NOTIFY inputsChanged)
    Q_PROPERTY(int microBatch READ microBatch WRITE setMicroBatch NOTIFY inputsChanged)
    Q_PROPERTY(int gradAccum READ gradAccum WRITE setGradAccum NOTIFY inputsChanged)
    // Sequences per optimizer step on every layout; 0 is the default, world x micro-batch x grad-accum.
    Q_PROPERTY(int globalBatch READ globalBatch WRITE setGlobalBatch NOTIFY inputsChanged)
    Q_PROPERTY(QString recompute READ recompute WRITE setRecompute NOTIFY inputsChanged)
    // The choices, core's names; modelNames starts with "none".
    Q_PROPERTY(QStringList modelNames READ modelNames CONSTANT)
    Q_PROPERTY(QStringList hardwareNames READ hardwareNames CONSTANT)
    Q_PROPERTY(QStringList networkNames READ networkNames CONSTANT)
    Q_PROPERTY(QStringList recomputeNames READ recomputeNames CONSTANT)
    Q_PROPERTY(bool hasModel READ hasModel NOTIFY inputsChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY inputsChanged)  // core's message on the inputs; "" when valid
    // The input errorText is about, core's name ("seq", "micro_batch", "grad_accum", "global_batch", "hardware",
    // ...); "" when valid.
    Q_PROPERTY(QString errorField READ errorField NOTIFY inputsChanged)

public:
    static inline const QString no_model = QStringLiteral("none");

    explicit CostForm(QObject* parent = nullptr);

    [[nodiscard]] QString model() const { return model_; }
    [[nodiscard]] QString hardware() const { return hardware_; }
    [[nodiscard]] QString network() const { return network_; }
    [[nodiscard]] int seq() const { return seq_; }
    [[nodiscard]] int microBatch() const { return micro_batch_; }
    [[nodiscard]] int gradAccum() const { return grad_accum_; }
    [[nodiscard]] int globalBatch() const { return global_batch_; }
    [[nodiscard]] QString recompute() const { return recompute_; }
    void setModel(const QString& value);
    void setHardware(const QString& value);
    void setNetwork(const QString& value);
    void setSeq(int value);
    void setMicroBatch(int value);
    void setGradAccum(int value);
    void setGlobalBatch(int value);
    void setRecompute(const QString& value);
    [[nodiscard]] static QStringList modelNames();
    [[nodiscard]] static QStringList hardwareNames();
    [[nodiscard]] static QStringList networkNames();
    [[nodiscard]] static QStringList recomputeNames();

    [[nodiscard]] bool hasModel() const { return model_.compare(no_model, Qt::CaseInsensitive) != 0; }
    [[nodiscard]] QString errorText() const;
    [[nodiscard]] QString errorField() const;

    // The user's cluster profile (`meshscope --cluster-profile FILE`): every request carries it; null: presets.
    void setClusterProfile(std::shared_ptr<const cost::LoadedClusterProfile> profile);
    [[nodiscard]] const cost::LoadedClusterProfile* clusterProfile() const { return cluster_profile_.get(); }

    // The request these inputs make for a cluster of `gpus_per_node`.
    [[nodiscard]] cost::CostRequest request(std::int64_t gpus_per_node) const;
    // The inputs for a cluster of `gpus_per_node`: nullopt without a model, else core's answer.
    [[nodiscard]] std::optional<cost::CostAnswer> inputs(std::int64_t gpus_per_node) const;

    // Under "planner/cost/"; restore takes only a set core accepts, and returns whether it did.
    bool restore(QSettings& settings);
    void save(QSettings& settings) const;

signals:
    void inputsChanged();

private:
    template <typename T>
    void set_input(T& slot, const T& value);

    QString model_ = no_model;
    QString hardware_ = QStringLiteral("h100");
    QString network_ = QStringLiteral("ndr");
    int seq_ = 4096;
    int micro_batch_ = 1;
    int grad_accum_ = 1;
    int global_batch_ = 0;
    QString recompute_ = QStringLiteral("selective");
    std::shared_ptr<const cost::LoadedClusterProfile> cluster_profile_;
};

}  // namespace meshscope::ui
