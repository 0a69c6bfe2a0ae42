// Buffers, arguments, patterns and checks of the tools' collectives (coll_call.h).
#include "tools/perf/coll_call.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lib/dt/half.h"
#include "model/layout.h"

namespace ucc::perf {

namespace {

// Byte j of what rank r contributes (data movement collectives).
uint8_t byte_of(uint32_t r, uint64_t j) {
    return static_cast<uint8_t>(r * 31u + j * 7u + 1u);
}

// Element i of rank r's input (reductions): 0 or 1, exact in every type and
// under every reduction at any team size (16-bit floats: up to 256 ranks).
double value_of(uint32_t r, uint64_t i) {
    return static_cast<double>((r + i) % 2);
}

void write_elem(const DtDesc &d, uint8_t *p, double v) {
    switch (d.dt) {
        case UCC_DT_INT8:
            *reinterpret_cast<int8_t *>(p) = static_cast<int8_t>(v);
            return;
        case UCC_DT_UINT8:
            *p = static_cast<uint8_t>(v);
            return;
        case UCC_DT_INT16: {
            const int16_t x = static_cast<int16_t>(v);
            std::memcpy(p, &x, 2);
            return;
        }
        case UCC_DT_UINT16: {
            const uint16_t x = static_cast<uint16_t>(v);
            std::memcpy(p, &x, 2);
            return;
        }
        case UCC_DT_INT32:
        case UCC_DT_UINT32: {
            const int32_t x = static_cast<int32_t>(v);
            std::memcpy(p, &x, 4);
            return;
        }
        case UCC_DT_INT64:
        case UCC_DT_UINT64:
        case UCC_DT_INT128:
        case UCC_DT_UINT128: {
            std::memset(p, 0, d.size);
            const int64_t x = static_cast<int64_t>(v);
            std::memcpy(p, &x, 8);
            return;
        }
        case UCC_DT_FLOAT16: {
            const uint16_t x = ucc::dt::float_to_half(static_cast<float>(v));
            std::memcpy(p, &x, 2);
            return;
        }
        case UCC_DT_BFLOAT16: {
            const uint16_t x = ucc::dt::float_to_bfloat16(static_cast<float>(v));
            std::memcpy(p, &x, 2);
            return;
        }
        case UCC_DT_FLOAT32:
        case UCC_DT_FLOAT32_COMPLEX: {
            std::memset(p, 0, d.size);
            const float x = static_cast<float>(v);
            std::memcpy(p, &x, 4);
            return;
        }
        case UCC_DT_FLOAT64:
        case UCC_DT_FLOAT64_COMPLEX: {
            std::memset(p, 0, d.size);
            std::memcpy(p, &v, 8);
            return;
        }
        default: {  // long double and its complex
            std::memset(p, 0, d.size);
            const long double x = v;
            std::memcpy(p, &x, sizeof(x));
            return;
        }
    }
}

// The real part (complex types: and whether the imaginary part is zero).
double read_elem(const DtDesc &d, const uint8_t *p, bool *imag_zero) {
    *imag_zero = true;
    switch (d.dt) {
        case UCC_DT_INT8:
            return *reinterpret_cast<const int8_t *>(p);
        case UCC_DT_UINT8:
            return *p;
        case UCC_DT_INT16: {
            int16_t x;
            std::memcpy(&x, p, 2);
            return x;
        }
        case UCC_DT_UINT16: {
            uint16_t x;
            std::memcpy(&x, p, 2);
            return x;
        }
        case UCC_DT_INT32:
        case UCC_DT_UINT32: {
            int32_t x;
            std::memcpy(&x, p, 4);
            return x;
        }
        case UCC_DT_INT64:
        case UCC_DT_UINT64:
        case UCC_DT_INT128:
        case UCC_DT_UINT128: {
            int64_t x;
            std::memcpy(&x, p, 8);
            return static_cast<double>(x);
        }
        case UCC_DT_FLOAT16: {
            uint16_t x;
            std::memcpy(&x, p, 2);
            return ucc::dt::half_to_float(x);
        }
        case UCC_DT_BFLOAT16: {
            uint16_t x;
            std::memcpy(&x, p, 2);
            return ucc::dt::bfloat16_to_float(x);
        }
        case UCC_DT_FLOAT32:
        case UCC_DT_FLOAT32_COMPLEX: {
            float x[2] = {0, 0};
            std::memcpy(x, p, d.is_complex ? 8 : 4);
            *imag_zero = x[1] == 0;
            return x[0];
        }
        case UCC_DT_FLOAT64:
        case UCC_DT_FLOAT64_COMPLEX: {
            double x[2] = {0, 0};
            std::memcpy(x, p, d.is_complex ? 16 : 8);
            *imag_zero = x[1] == 0;
            return x[0];
        }
        default: {
            long double x[2] = {0, 0};
            std::memcpy(x, p, d.is_complex ? 2 * sizeof(long double) : sizeof(long double));
            *imag_zero = x[1] == 0;
            return static_cast<double>(x[0]);
        }
    }
}

// The reduction of value_of(r, i) over r < n.
double reduced(ucc_reduction_op_t op, uint64_t i, uint32_t n, bool is_float) {
    double sum = 0, prod = 1, mx = -1, mn = 2;
    for (uint32_t r = 0; r < n; ++r) {
        const double v = value_of(r, i);
        sum += v;
        prod *= v;
        mx = std::max(mx, v);
        mn = std::min(mn, v);
    }
    switch (op) {
        case UCC_OP_SUM:
            return sum;
        case UCC_OP_PROD:
            return prod;
        case UCC_OP_MAX:
        case UCC_OP_LOR:
        case UCC_OP_BOR:
            return mx;
        case UCC_OP_MIN:
        case UCC_OP_LAND:
        case UCC_OP_BAND:
            return mn;
        case UCC_OP_LXOR:
        case UCC_OP_BXOR:
            return std::fmod(sum, 2.0);
        case UCC_OP_AVG:
            return is_float ? sum / n : std::floor(sum / n);
        default:
            return 0;
    }
}

model::Layout layout_of(const CollSpec &s, uint32_t rank) {
    return model::layout_of(s.coll->type, s.inplace, rank == s.root);
}

// Elements of a buffer that holds `h`, with blocks of `cnt` elements.
uint64_t elements(model::Holds h, uint64_t cnt, uint32_t n) {
    switch (h) {
        case model::Holds::kNothing:
            return 0;
        case model::Holds::kVector:
        case model::Holds::kOwnBlock:
            return cnt;
        case model::Holds::kAllBlocks:
        case model::Holds::kPeerBlocks:
            return cnt * n;
    }
    return 0;
}

}  // namespace

BufferElements buffer_elements(const CollSpec &s, uint64_t cnt, uint32_t n, uint32_t rank) {
    const model::Layout l = layout_of(s, rank);
    return {elements(l.src.holds, cnt, n), elements(l.dst.holds, cnt, n)};
}

void VArrays::build(uint64_t count, uint32_t n) {
    counts.assign(n, count);
    displs.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        displs[i] = count * i;
    }
}

void build_call(const CollSpec &s, uint64_t cnt, uint32_t n, uint32_t rank, const VArrays *va,
                CollCall *call) {
    const CollDesc &c = *s.coll;
    const size_t es = s.dtype->size;
    ucc_coll_args_t &a = call->args;
    a = ucc_coll_args_t{};
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = 0;
    a.coll_type = c.type;
    a.root = s.root;
    a.op = s.op->op;
    if (s.inplace && c.shape != Shape::kNone) {
        a.flags |= UCC_COLL_ARGS_FLAG_IN_PLACE;
    }
    if (s.persistent) {
        a.flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
    }
    if (c.v) {
        a.flags |= UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    }
    // The buffers the rank uses (model/layout.h); unused ones stay NULL and empty.
    const model::Layout l = layout_of(s, rank);
    const BufferElements e = buffer_elements(s, cnt, n, rank);
    const uint64_t src_n = e.src;
    const uint64_t dst_n = e.dst;
    void *src = nullptr;
    void *dst = nullptr;
    if (!s.no_buffers) {
        call->src.assign(static_cast<size_t>(src_n * es), 1);
        call->dst.assign(static_cast<size_t>(dst_n * es), 0);
        src = call->src.empty() ? nullptr : call->src.data();
        dst = call->dst.empty() ? nullptr : call->dst.data();
    }
    const ucc_datatype_t dt = s.dtype->dt;
    auto *counts = va != nullptr ? const_cast<uint64_t *>(va->counts.data()) : nullptr;
    auto *displs = va != nullptr ? const_cast<uint64_t *>(va->displs.data()) : nullptr;
    auto describe = [&](auto &b, const model::Buffer &u, void *buf, uint64_t elems) {
        if (u.v()) {
            const bool with_displs = u.desc == model::Desc::kInfoV;
            b.info_v = {buf, counts, with_displs ? displs : nullptr, dt, UCC_MEMORY_TYPE_HOST};
        } else {
            b.info = {buf, elems, dt, UCC_MEMORY_TYPE_HOST};
        }
    };
    if (s.mem != UCC_MEMORY_TYPE_HOST && s.cuda != nullptr) {
        // The collective's buffers on the GPU, copies of the host ones.
        const auto kind =
            s.mem == UCC_MEMORY_TYPE_CUDA_MANAGED ? UCC_CUDA_ALLOC_MANAGED : UCC_CUDA_ALLOC_DEVICE;
        const ucc_cuda_component_t *cuda = s.cuda;
        auto device = [&](const std::vector<uint8_t> &host) -> std::shared_ptr<void> {
            void *p = nullptr;
            if (host.empty() || cuda->alloc(kind, host.size(), &p) != 0) {
                return nullptr;
            }
            return std::shared_ptr<void>(p, [cuda, kind](void *q) { cuda->free(kind, q); });
        };
        call->dev_src = device(call->src);
        call->dev_dst = device(call->dst);
        src = call->dev_src.get();
        dst = call->dev_dst.get();
    }
    describe(a.src, l.src, src, src_n);
    describe(a.dst, l.dst, dst, dst_n);
    if (s.mem != UCC_MEMORY_TYPE_HOST) {
        (l.src.v() ? a.src.info_v.mem_type : a.src.info.mem_type) = s.mem;
        (l.dst.v() ? a.dst.info_v.mem_type : a.dst.info.mem_type) = s.mem;
    }
}

namespace {

std::string copy_all(const CollSpec &s, CollCall *call, bool to_device) {
    if (s.mem == UCC_MEMORY_TYPE_HOST || s.cuda == nullptr) {
        return "";
    }
    const std::pair<std::vector<uint8_t> *, void *> pairs[] = {{&call->src, call->dev_src.get()},
                                                               {&call->dst, call->dev_dst.get()}};
    for (const auto &[host, dev] : pairs) {
        if (host->empty()) {
            continue;
        }
        if (dev == nullptr) {
            return "no GPU memory for " + std::to_string(host->size()) + " bytes";
        }
        int rc = to_device ? s.cuda->copy_async(dev, host->data(), host->size(), nullptr)
                           : s.cuda->copy_async(host->data(), dev, host->size(), nullptr);
        if (rc == 0) {
            rc = s.cuda->stream_sync(nullptr);
        }
        if (rc != 0) {
            return std::string("copying ") + (to_device ? "to" : "from") +
                   " the GPU: " + s.cuda->error_string(rc);
        }
    }
    return "";
}

}  // namespace

std::string push_to_device(const CollSpec &s, CollCall *call) {
    return copy_all(s, call, true);
}

std::string pull_from_device(const CollSpec &s, CollCall *call) {
    return copy_all(s, call, false);
}

void fill_pattern(const CollSpec &s, uint64_t cnt, uint32_t n, uint32_t rank, CollCall *call) {
    const CollDesc &c = *s.coll;
    const size_t es = s.dtype->size;
    const model::Layout l = layout_of(s, rank);
    std::fill(call->dst.begin(), call->dst.end(), uint8_t{0});
    // The rank's input: src, or dst in place (at its own block for allgather
    // and the root of gather).
    const model::Holds input = model::layout_of(c.type, false, rank == s.root).src.holds;
    std::vector<uint8_t> &in = l.input_in_dst ? call->dst : call->src;
    const uint64_t offset =
        l.input_in_dst && input == model::Holds::kOwnBlock ? rank * cnt * es : 0;
    const uint64_t room = in.size() > offset ? (in.size() - offset) / es : 0;
    const uint64_t elems = std::min<uint64_t>(elements(input, cnt, n), room);
    if (c.reduction) {
        for (uint64_t i = 0; i < elems; ++i) {
            write_elem(*s.dtype, in.data() + offset + i * es, value_of(rank, i));
        }
        return;
    }
    for (uint64_t j = 0; j < elems * es; ++j) {
        in[offset + j] = byte_of(rank, j);
    }
}

bool check_result(const CollSpec &s, uint64_t cnt, uint32_t n, uint32_t rank, const CollCall &call,
                  std::string *why) {
    const CollDesc &c = *s.coll;
    const DtDesc &d = *s.dtype;
    const size_t es = d.size;
    const uint64_t bb = cnt * es;  // bytes of one block
    if (c.shape == Shape::kNone || cnt == 0) {
        return true;
    }
    // Ranks that receive nothing: non-roots of reduce and gather(v), the root
    // of scatter(v) in place (its block stays in src).
    const model::Layout l = layout_of(s, rank);
    if (c.type != UCC_COLL_TYPE_BCAST && !l.dst.used()) {
        return true;
    }
    const std::vector<uint8_t> &out = c.type == UCC_COLL_TYPE_BCAST ? call.src : call.dst;
    auto wrong_byte = [&](uint64_t at, uint8_t want) {
        *why = "byte " + std::to_string(at) + " is " + std::to_string(out[at]) + ", expected " +
               std::to_string(want);
        return false;
    };
    switch (c.type) {
        case UCC_COLL_TYPE_BCAST:
            for (uint64_t j = 0; j < bb; ++j) {
                if (out[j] != byte_of(s.root, j)) {
                    return wrong_byte(j, byte_of(s.root, j));
                }
            }
            return true;
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
            for (uint32_t r = 0; r < n; ++r) {
                for (uint64_t j = 0; j < bb; ++j) {
                    if (out[r * bb + j] != byte_of(r, j)) {
                        return wrong_byte(r * bb + j, byte_of(r, j));
                    }
                }
            }
            return true;
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            for (uint64_t j = 0; j < bb; ++j) {
                if (out[j] != byte_of(s.root, rank * bb + j)) {
                    return wrong_byte(j, byte_of(s.root, rank * bb + j));
                }
            }
            return true;
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
            for (uint32_t r = 0; r < n; ++r) {
                for (uint64_t j = 0; j < bb; ++j) {
                    if (out[r * bb + j] != byte_of(r, rank * bb + j)) {
                        return wrong_byte(r * bb + j, byte_of(r, rank * bb + j));
                    }
                }
            }
            return true;
        default:
            break;
    }
    // Reductions; reduce_scatter(v) in place leaves the rank's block at its
    // place in dst.
    const bool sum_like = s.op->op == UCC_OP_SUM || s.op->op == UCC_OP_AVG;
    if (d.size == 2 && d.is_float && sum_like && n > 256) {
        *why = "16-bit float sums beyond 256 ranks are not checked";
        return true;
    }
    const uint64_t base = c.shape == Shape::kScatterTo ? rank * cnt : 0;
    const uint64_t at = l.input_in_dst ? base : 0;
    for (uint64_t i = 0; i < cnt; ++i) {
        const double want = reduced(s.op->op, base + i, n, d.is_float);
        bool imag_zero = true;
        const double got = read_elem(d, out.data() + (at + i) * es, &imag_zero);
        const double tol = d.is_float ? 1e-3 * std::max(1.0, std::fabs(want)) : 0;
        if (std::fabs(got - want) > tol || !imag_zero) {
            *why = "element " + std::to_string(i) + " is " + std::to_string(got) +
                   (imag_zero ? "" : " (imaginary part not 0)") + ", expected " +
                   std::to_string(want);
            return false;
        }
    }
    return true;
}

}  // namespace ucc::perf
