#include "gloo_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include "connect_retry.h"
#include "plan_exchange.h"

namespace meshscope::probe {

namespace {

struct StoreTimeout : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// gloo::rendezvous::Store over the job's KeyValue; wait() honours gloo's timeout by polling.
class KvStore : public gloo::rendezvous::Store {
public:
    explicit KvStore(KeyValue& kv) : kv_(kv) {}
    void set(const std::string& key, const std::vector<char>& data) override {
        kv_.set(key, std::string(data.begin(), data.end()));
    }
    std::vector<char> get(const std::string& key) override {
        const auto value = kv_.wait_get(key, timeout_);
        if (!value) throw StoreTimeout("no key " + key);
        return {value->begin(), value->end()};
    }
    void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) override {
        // The probe's --timeout bounds every wait, whatever gloo passes (a connect attempt's share of it).
        const auto deadline = std::chrono::steady_clock::now() + timeout_;
        for (const auto& key : keys) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (!kv_.wait_get(key, std::max(left, std::chrono::milliseconds{0}))) throw StoreTimeout(key);
        }
    }

    void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

private:
    KeyValue& kv_;
    std::chrono::milliseconds timeout_{kDefaultTimeout};
};

// A group of one: every collective is a copy (gloo contexts need two members).
class SoloCommunicator : public Communicator {
public:
    void load(Collective, std::span<const float> input, std::size_t output_elements) override {
        output_.assign(input.begin(), input.end());
        output_.resize(output_elements);
    }
    void launch() override {}
    void wait() override {}
    std::vector<float> output() override { return output_; }

private:
    std::vector<float> output_;
};

class GlooCommunicator : public Communicator {
public:
    GlooCommunicator(std::shared_ptr<gloo::Context> context, std::chrono::milliseconds delay)
        : context_(std::move(context)), delay_(delay) {}

    void load(Collective collective, std::span<const float> input, std::size_t output_elements) override {
        collective_ = collective;
        input_.assign(input.begin(), input.end());
        output_.assign(output_elements, 0.0f);
        if (collective == Collective::reduce_scatter) work_.assign(input_.size(), 0.0f);
    }

    void launch() override {
        if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
        const auto tag = next_tag_++;
        switch (collective_) {
            case Collective::all_reduce: {
                gloo::AllreduceOptions o(context_);
                o.setInput(input_.data(), input_.size());
                o.setOutput(output_.data(), output_.size());
                o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
                o.setTag(tag);
                gloo::allreduce(o);
                break;
            }
            case Collective::all_gather: {
                gloo::AllgatherOptions o(context_);
                o.setInput(input_.data(), input_.size());
                o.setOutput(output_.data(), output_.size());
                o.setTag(tag);
                gloo::allgather(o);
                break;
            }
            case Collective::all_to_all: {
                gloo::AlltoallOptions o(context_);
                o.setInput(input_.data(), input_.size());
                o.setOutput(output_.data(), output_.size());
                o.setTag(tag);
                gloo::alltoall(o);
                break;
            }
            case Collective::reduce_scatter: {
                // Debian's gloo (2022) has only ReduceScatterHalvingDoubling, which leaves each rank's chunk where
                // its binary blocks put it (the probe's check caught it); an all-reduce of the whole input and
                // this rank's chunk of it is exact, and moves twice the bytes of a reduce-scatter (docs/probe.md).
                gloo::AllreduceOptions o(context_);
                o.setInput(input_.data(), input_.size());
                o.setOutput(work_.data(), work_.size());
                o.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
                o.setTag(tag);
                gloo::allreduce(o);
                const std::size_t chunk = output_.size();
                const auto offset = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(context_->rank) * chunk);
                std::copy(work_.begin() + offset, work_.begin() + offset + static_cast<std::ptrdiff_t>(chunk),
                          output_.begin());
                break;
            }
        }
    }

    void wait() override {}
    std::vector<float> output() override { return output_; }

private:
    std::shared_ptr<gloo::Context> context_;
    std::chrono::milliseconds delay_;
    Collective collective_ = Collective::all_reduce;
    std::vector<float> input_, output_, work_;
    std::uint32_t next_tag_ = 1;
};

class GlooBackend : public Backend {
public:
    GlooBackend(KeyValue& store, GlooOptions options) : kv_(store), store_(store), options_(std::move(options)) {
        gloo::transport::tcp::attr attr;
        attr.hostname = options_.bind_address;
        device_ = gloo::transport::tcp::CreateDevice(attr);
    }

    std::string name() const override { return "gloo"; }

    std::unique_ptr<Communicator> create(const GroupSpec& g, std::chrono::milliseconds timeout) override {
        // The prefix names the group by creation index and members: a rank whose plan gives it another group
        // at this index writes elsewhere and is named as never joined.
        std::uint64_t hash = 1469598103934665603ull;
        for (const auto m : g.members) hash = (hash ^ static_cast<std::uint64_t>(m)) * 1099511628211ull;
        const std::string prefix = "g" + std::to_string(g.creation) + "." + std::to_string(g.members.size()) + "." +
                                   std::to_string(hash % 1000000007ull);
        if (g.members.size() == 1) return std::make_unique<SoloCommunicator>();
        // Each member marks that it joined, so a timeout can name the members that never did.
        kv_.set(prefix + ".joined." + std::to_string(g.position), "1");
        // gloo's rendezvous, retried together by the members on a connect failure (connect_retry.h).
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::shared_ptr<gloo::rendezvous::Context> context;
        try {
            connect_together(
                kv_, prefix, g.position, g.members, timeout, RetryPolicy{},
                [&](const std::string& attempt_prefix, std::chrono::milliseconds budget) {
                    // A member still in its last attempt's connects may reach the store late: the store waits
                    // to the deadline, the connects only for this attempt's share of it.
                    store_.set_timeout(
                        std::max(std::chrono::milliseconds{0}, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                   deadline - std::chrono::steady_clock::now())));
                    gloo::rendezvous::PrefixStore prefixed(attempt_prefix, store_);
                    context = std::make_shared<gloo::rendezvous::Context>(static_cast<int>(g.position),
                                                                          static_cast<int>(g.members.size()));
                    context->setTimeout(std::max(budget, std::chrono::milliseconds{1}));
                    try {
                        context->connectFullMesh(prefixed, device_);
                    } catch (const gloo::IoException& e) {
                        throw ConnectFailed(e.what());
                    }
                },
                [](std::chrono::milliseconds pause) { std::this_thread::sleep_for(pause); });
        } catch (const NotFormed&) {
            throw;
        } catch (const StoreTimeout&) {
            std::vector<std::int64_t> missing;
            for (std::size_t p = 0; p < g.members.size(); ++p)
                if (p != g.position && !kv_.try_get(prefix + ".joined." + std::to_string(p)))
                    missing.push_back(g.members[p]);
            std::sort(missing.begin(), missing.end());
            const std::string limit = seconds_text(timeout);
            throw NotFormed(missing.empty() ? std::string("the group did not connect within ") + limit
                                            : ranks_text(missing) + " did not join within " + limit,
                            missing);
        } catch (const std::exception& e) {
            throw std::runtime_error(std::string("gloo could not connect the group: ") + e.what());
        }
        context->setTimeout(timeout);  // the collectives' limit
        const bool slow = g.dim == options_.slow_dim && g.index == options_.slow_index;
        return std::make_unique<GlooCommunicator>(context, slow ? options_.slow_delay : std::chrono::milliseconds{0});
    }

private:
    KeyValue& kv_;
    KvStore store_;
    GlooOptions options_;
    std::shared_ptr<gloo::transport::Device> device_;
};

}  // namespace

std::unique_ptr<Backend> make_gloo_backend(KeyValue& store, GlooOptions options) {
    return std::make_unique<GlooBackend>(store, std::move(options));
}

}  // namespace meshscope::probe
