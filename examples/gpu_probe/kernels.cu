// CUDA kernels and cuBLAS calls for the decode probe. Random bf16 weights, no downloads.
#include "kernels.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace probe {
namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

__global__ void fill_random(__nv_bfloat16* p, std::size_t n, unsigned seed) {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        unsigned x = static_cast<unsigned>(i) * 2654435761u + seed;
        x ^= x >> 13;
        x *= 0x5bd1e995u;
        p[i] = __float2bfloat16((static_cast<float>(x & 0xffff) / 65536.0f - 0.5f) * 0.02f);
    }
}

// Streams a buffer and reduces it, so the read cannot be skipped.
__global__ void read_all(const float4* p, std::size_t n, float* sink) {
    float acc = 0;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 123.456f) *sink = acc;  // practically never: keeps the loads alive
}

// Decode attention for one layer, split over the context as flash-decoding does so that batch 1
// still fills the GPU: block (sequence, KV head, split) reads its share of that head's K and V
// once and applies them to the group's query heads; the partial sums are added atomically. No
// softmax normalisation: it costs no bytes, and the values are random anyway.
__global__ void attend(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* out, int context,
                       int kv_heads, int group, int head_dim, int per_split) {
    const int seq = blockIdx.x, kvh = blockIdx.y, d = threadIdx.x;  // one thread per head dimension
    if (d >= head_dim) return;
    const int first = blockIdx.z * per_split, last = min(context, first + per_split);
    const std::size_t base = (static_cast<std::size_t>(seq) * kv_heads + kvh) * static_cast<std::size_t>(context) * head_dim;
    float qd[8], acc[8];
    for (int g = 0; g < 8; ++g) {
        qd[g] = g < group ? __bfloat162float(q[(static_cast<std::size_t>(seq) * kv_heads * group + kvh * group + g) * head_dim + d]) : 0.f;
        acc[g] = 0;
    }
    for (int t = first; t < last; ++t) {
        const float kd = __bfloat162float(k[base + static_cast<std::size_t>(t) * head_dim + d]);
        const float vd = __bfloat162float(v[base + static_cast<std::size_t>(t) * head_dim + d]);
        for (int g = 0; g < 8; ++g) acc[g] += qd[g] * kd * vd;  // stands in for score * value
    }
    for (int g = 0; g < group && g < 8; ++g)
        atomicAdd(&out[(static_cast<std::size_t>(seq) * kv_heads * group + kvh * group + g) * head_dim + d], acc[g]);
}

__nv_bfloat16* alloc_bf16(std::size_t n, unsigned seed) {
    void* p = nullptr;
    check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(__nv_bfloat16)), "cudaMalloc");
    fill_random<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
    check(cudaGetLastError(), "fill_random");
    return static_cast<__nv_bfloat16*>(p);
}

// y[B x out] = x[B x in] * W[in x out], column-major as cuBLAS sees it: W^T (out x in) times x^T.
void gemm(cublasHandle_t h, const __nv_bfloat16* w, const __nv_bfloat16* x, __nv_bfloat16* y, int out, int in, int batch) {
    const float one = 1, zero = 0;
    check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in, &one, w, CUDA_R_16BF, out, x, CUDA_R_16BF, in, &zero, y,
                       CUDA_R_16BF, out, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
}

// Times `body` `repeats` times with CUDA events: the median and the fastest, in milliseconds.
template <class F>
StepTiming time_events(F&& body, int repeats) {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<float> times;
    for (int r = 0; r < repeats; ++r) {
        check(cudaEventRecord(start), "cudaEventRecord");
        body();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    check(cudaGetLastError(), "timed work");
    std::sort(times.begin(), times.end());
    return StepTiming{times[times.size() / 2], times.front()};
}
template <class F>
double time_ms(F&& body, int repeats) {
    return time_events(body, repeats).median_ms;
}

}  // namespace

DeviceInfo device_info() {
    DeviceInfo info;
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    info.name = prop.name;
    check(cudaDriverGetVersion(&info.driver_version), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&info.runtime_version), "cudaRuntimeGetVersion");
    check(cudaMemGetInfo(&info.free_bytes, &info.total_bytes), "cudaMemGetInfo");
    return info;
}

double copy_bytes_per_s(std::size_t bytes, int repeats) {
    void *a = nullptr, *b = nullptr;
    check(cudaMalloc(&a, bytes), "cudaMalloc");
    check(cudaMalloc(&b, bytes), "cudaMalloc");
    const double ms = time_ms([&] { check(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy"); }, repeats);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * static_cast<double>(bytes) / (ms * 1e-3);  // read and written
}

double read_bytes_per_s(std::size_t bytes, int repeats) {
    void* a = nullptr;
    float* sink = nullptr;
    check(cudaMalloc(&a, bytes), "cudaMalloc");
    check(cudaMalloc(&sink, sizeof(float)), "cudaMalloc");
    check(cudaMemset(a, 0, bytes), "cudaMemset");
    const double ms = time_ms([&] { read_all<<<4096, 512>>>(static_cast<const float4*>(a), bytes / sizeof(float4), sink); }, repeats);
    cudaFree(a);
    cudaFree(sink);
    return static_cast<double>(bytes) / (ms * 1e-3);
}

double gemm_flop_per_s(int n, int repeats) {
    cublasHandle_t h;
    check(cublasCreate(&h), "cublasCreate");
    __nv_bfloat16* a = alloc_bf16(static_cast<std::size_t>(n) * n, 1);
    __nv_bfloat16* b = alloc_bf16(static_cast<std::size_t>(n) * n, 2);
    __nv_bfloat16* c = alloc_bf16(static_cast<std::size_t>(n) * n, 3);
    gemm(h, a, b, c, n, n, n);  // warm-up
    const double ms = time_ms([&] { gemm(h, a, b, c, n, n, n); }, repeats);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cublasDestroy(h);
    return 2.0 * n * static_cast<double>(n) * n / (ms * 1e-3);
}

struct DecodeProbe::Impl {
    Shape s;
    std::size_t kv_tokens;
    cublasHandle_t handle{};
    struct Layer {
        __nv_bfloat16 *q, *k, *v, *o, *gate, *up, *down, *k_cache, *v_cache;
    };
    std::vector<Layer> layers;
    __nv_bfloat16 *lm_head = nullptr, *x = nullptr, *qa = nullptr, *ka = nullptr, *va = nullptr, *attn = nullptr,
                  *h1 = nullptr, *h2 = nullptr, *logits = nullptr;
    float* partial = nullptr;  // attention sums, B x heads x head_dim
    int max_batch = 1024;
};

DecodeProbe::DecodeProbe(const Shape& s, std::size_t kv_tokens) : impl_(new Impl{s, kv_tokens}) {
    check(cublasCreate(&impl_->handle), "cublasCreate");
    const std::size_t h = s.hidden, q = static_cast<std::size_t>(s.heads) * s.head_dim,
                      kv = static_cast<std::size_t>(s.kv_heads) * s.head_dim, I = s.intermediate;
    unsigned seed = 10;
    for (int l = 0; l < s.layers; ++l) {
        Impl::Layer L{};
        L.q = alloc_bf16(h * q, seed++);
        L.k = alloc_bf16(h * kv, seed++);
        L.v = alloc_bf16(h * kv, seed++);
        L.o = alloc_bf16(q * h, seed++);
        L.gate = alloc_bf16(h * I, seed++);
        L.up = alloc_bf16(h * I, seed++);
        L.down = alloc_bf16(I * h, seed++);
        L.k_cache = alloc_bf16(kv_tokens * kv, seed++);
        L.v_cache = alloc_bf16(kv_tokens * kv, seed++);
        impl_->layers.push_back(L);
    }
    const std::size_t B = impl_->max_batch;
    impl_->lm_head = alloc_bf16(h * static_cast<std::size_t>(s.vocab), seed++);
    impl_->x = alloc_bf16(B * h, seed++);
    impl_->qa = alloc_bf16(B * q, seed++);
    impl_->ka = alloc_bf16(B * kv, seed++);
    impl_->va = alloc_bf16(B * kv, seed++);
    impl_->attn = alloc_bf16(B * q, seed++);
    impl_->h1 = alloc_bf16(B * I, seed++);
    impl_->h2 = alloc_bf16(B * I, seed++);
    impl_->logits = alloc_bf16(B * static_cast<std::size_t>(s.vocab), seed++);
    check(cudaMalloc(&impl_->partial, B * q * sizeof(float)), "cudaMalloc");
    check(cudaDeviceSynchronize(), "initialising weights");
}

DecodeProbe::~DecodeProbe() {
    for (auto& L : impl_->layers)
        for (void* p : {L.q, L.k, L.v, L.o, L.gate, L.up, L.down, L.k_cache, L.v_cache}) cudaFree(p);
    for (void* p : {impl_->lm_head, impl_->x, impl_->qa, impl_->ka, impl_->va, impl_->attn, impl_->h1, impl_->h2, impl_->logits})
        cudaFree(p);
    cudaFree(impl_->partial);
    cublasDestroy(impl_->handle);
    delete impl_;
}

StepTiming DecodeProbe::time_step(int batch, int context, int warmup, int repeats) {
    const Shape& s = impl_->s;
    if (batch > impl_->max_batch) throw std::runtime_error("batch above the probe's 1024");
    if (static_cast<std::size_t>(batch) * context > impl_->kv_tokens) throw std::runtime_error("KV cache too small for B x n");
    const int q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim, group = s.heads / s.kv_heads;
    auto step = [&] {
        for (auto& L : impl_->layers) {
            gemm(impl_->handle, L.q, impl_->x, impl_->qa, q, s.hidden, batch);
            gemm(impl_->handle, L.k, impl_->x, impl_->ka, kv, s.hidden, batch);
            gemm(impl_->handle, L.v, impl_->x, impl_->va, kv, s.hidden, batch);
            if (context > 0) {
                const int splits = std::min(256, (context + 127) / 128), per_split = (context + splits - 1) / splits;
                attend<<<dim3(batch, s.kv_heads, splits), s.head_dim>>>(impl_->qa, L.k_cache, L.v_cache, impl_->partial, context,
                                                                         s.kv_heads, group, s.head_dim, per_split);
            }
            gemm(impl_->handle, L.o, impl_->attn, impl_->x, s.hidden, q, batch);
            gemm(impl_->handle, L.gate, impl_->x, impl_->h1, s.intermediate, s.hidden, batch);
            gemm(impl_->handle, L.up, impl_->x, impl_->h2, s.intermediate, s.hidden, batch);
            gemm(impl_->handle, L.down, impl_->h1, impl_->x, s.hidden, s.intermediate, batch);
        }
        gemm(impl_->handle, impl_->lm_head, impl_->x, impl_->logits, s.vocab, s.hidden, batch);
    };
    for (int i = 0; i < warmup; ++i) step();
    check(cudaDeviceSynchronize(), "warm-up");
    return time_events(step, repeats);
}

}  // namespace probe
