#include "nccl_backend.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include <cuda_runtime.h>
#include <nccl.h>

namespace meshscope::probe {

namespace {
using clock = std::chrono::steady_clock;

void check_cuda(cudaError_t rc, const char* what) {
    if (rc != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(rc));
}

void check_nccl(ncclResult_t rc, const char* what) {
    if (rc != ncclSuccess && rc != ncclInProgress)
        throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(rc));
}

// Polls a non-blocking communicator until it is ready; aborts it and throws NotFormed on timeout.
void wait_ready(ncclComm_t comm, std::chrono::milliseconds timeout, const std::string& what) {
    const auto deadline = clock::now() + timeout;
    for (;;) {
        ncclResult_t state = ncclSuccess;
        check_nccl(ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError");
        if (state == ncclSuccess) return;
        if (state != ncclInProgress) {
            ncclCommAbort(comm);
            throw std::runtime_error(what + ": " + ncclGetErrorString(state));
        }
        if (clock::now() >= deadline) {
            ncclCommAbort(comm);
            char limit[32];
            std::snprintf(limit, sizeof limit, "%.1f s", static_cast<double>(timeout.count()) / 1000.0);
            throw NotFormed(what + " did not finish within " + limit, {});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
}

std::string hex(const char* data, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < size; ++i) {
        const auto b = static_cast<unsigned char>(data[i]);
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

class NcclCommunicator : public Communicator {
public:
    NcclCommunicator(ncclComm_t comm, cudaStream_t stream, int size) : comm_(comm), stream_(stream), size_(size) {}
    ~NcclCommunicator() override {
        release();
        if (comm_) ncclCommDestroy(comm_);
    }
    void load(Collective c, std::span<const float> input, std::size_t output_elements) override {
        release();
        collective_ = c;
        in_elements_ = input.size();
        out_elements_ = output_elements;
        check_cuda(cudaMalloc(&in_, std::max<std::size_t>(in_elements_, 1) * sizeof(float)), "cudaMalloc");
        check_cuda(cudaMalloc(&out_, std::max<std::size_t>(out_elements_, 1) * sizeof(float)), "cudaMalloc");
        check_cuda(cudaMemcpy(in_, input.data(), in_elements_ * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    void launch() override {
        const auto n = static_cast<std::size_t>(size_);
        switch (collective_) {
            case Collective::all_reduce:
                check_nccl(ncclAllReduce(in_, out_, in_elements_, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce");
                break;
            case Collective::all_gather:
                check_nccl(ncclAllGather(in_, out_, in_elements_, ncclFloat, comm_, stream_), "ncclAllGather");
                break;
            case Collective::reduce_scatter:
                check_nccl(ncclReduceScatter(in_, out_, out_elements_, ncclFloat, ncclSum, comm_, stream_),
                           "ncclReduceScatter");
                break;
            case Collective::all_to_all:
                check_nccl(ncclAlltoAll(in_, out_, in_elements_ / n, ncclFloat, comm_, stream_), "ncclAlltoAll");
                break;
        }
    }
    void wait() override { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
    std::vector<float> output() override {
        std::vector<float> host(out_elements_);
        check_cuda(cudaMemcpy(host.data(), out_, out_elements_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        return host;
    }

private:
    void release() {
        if (in_) cudaFree(in_);
        if (out_) cudaFree(out_);
        in_ = out_ = nullptr;
    }
    ncclComm_t comm_;
    cudaStream_t stream_;
    int size_;
    Collective collective_ = Collective::all_reduce;
    void* in_ = nullptr;
    void* out_ = nullptr;
    std::size_t in_elements_ = 0, out_elements_ = 0;
};

class NcclBackend : public Backend {
public:
    NcclBackend(KeyValue& store, std::int64_t rank, std::int64_t world, int device)
        : store_(store), rank_(rank), world_(world), device_(device) {
        check_cuda(cudaSetDevice(device_), "cudaSetDevice");
        check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    ~NcclBackend() override {
        if (world_comm_) ncclCommDestroy(world_comm_);
        if (stream_) cudaStreamDestroy(stream_);
    }
    std::string name() const override { return "NCCL"; }

    std::unique_ptr<Communicator> create(const GroupSpec& g, std::chrono::milliseconds timeout) override {
        if (!world_comm_) init_world(timeout);
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        ncclComm_t comm = nullptr;
        // Every rank splits the world once per dim, in creation order; its color is its group of that dim.
        check_nccl(ncclCommSplit(world_comm_, static_cast<int>(g.color), static_cast<int>(g.position), &comm, &config),
                   "ncclCommSplit");
        wait_ready(comm, timeout, "ncclCommSplit of the " + g.dim + " groups");
        return std::make_unique<NcclCommunicator>(comm, stream_, static_cast<int>(g.members.size()));
    }

private:
    void init_world(std::chrono::milliseconds timeout) {
        ncclUniqueId id{};
        if (rank_ == 0) {
            check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
            store_.set("nccl.unique_id", hex(id.internal, sizeof id.internal));
        } else {
            const auto text = store_.wait_get("nccl.unique_id", timeout);
            if (!text || text->size() != 2 * sizeof id.internal)
                throw NotFormed("rank 0 did not publish the NCCL unique id", {0});
            for (std::size_t i = 0; i < sizeof id.internal; ++i)
                id.internal[i] = static_cast<char>(std::stoi(text->substr(2 * i, 2), nullptr, 16));
        }
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        check_nccl(ncclCommInitRankConfig(&world_comm_, static_cast<int>(world_), id, static_cast<int>(rank_), &config),
                   "ncclCommInitRankConfig");
        wait_ready(world_comm_, timeout, "the world communicator");
    }

    KeyValue& store_;
    std::int64_t rank_, world_;
    int device_;
    cudaStream_t stream_ = nullptr;
    ncclComm_t world_comm_ = nullptr;
};
}  // namespace

std::unique_ptr<Backend> make_nccl_backend(KeyValue& store, std::int64_t rank, std::int64_t world,
                                           std::int64_t local_rank) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess)
        throw Unavailable(std::string("no CUDA device visible: ") + cudaGetErrorString(rc) + " (cudaGetDeviceCount)");
    if (count == 0) throw Unavailable("no CUDA device visible: cudaGetDeviceCount found 0 devices");
    return std::make_unique<NcclBackend>(store, rank, world, static_cast<int>(local_rank % count));
}

std::string nccl_version_text() {
    int nccl = 0;
    ncclGetVersion(&nccl);
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    return "NCCL " + std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
           std::to_string(nccl % 100) + ", CUDA runtime " + std::to_string(runtime);
}

}  // namespace meshscope::probe
