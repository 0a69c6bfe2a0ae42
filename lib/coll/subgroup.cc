// Levels of hierarchical collectives: their arguments and their run.
#include "lib/coll/subgroup.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/radix.h"

namespace ucc::coll {

const Algorithm *CollEnv::select_flat(const Args &a, uint32_t size) {
    for (const Algorithm &alg : algorithms(a.type)) {
        if (!alg.onesided && !alg.hierarchical && alg.supports(a, size)) {
            return &alg;
        }
    }
    return nullptr;
}

uint64_t CollEnv::segment_for(const Algorithm &, const Args &a, uint32_t) {
    return a.segment_bytes == kSegmentAuto ? kDefaultSegment : a.segment_bytes;
}

uint32_t CollEnv::radix_for(const Algorithm &alg, const Args &a, uint32_t size) {
    const uint32_t k = coll::radix_for(alg, a, size);
    return k == kRadixAuto ? kDefaultRadix : k;
}

Args level_args(const Args &parent, ucc_coll_type_t type) {
    Args a;
    a.type = type;
    a.op = parent.op == UCC_OP_AVG ? UCC_OP_SUM : parent.op;
    a.dt = parent.dt;
    a.esize = parent.esize;
    a.src_mem = parent.src_mem;
    a.dst_mem = parent.dst_mem;
    a.generic = parent.generic;
    a.reduce_kernel = parent.reduce_kernel;
    a.radix = parent.radix;
    a.radixes = parent.radixes;
    a.chunk_bytes = parent.chunk_bytes;
    a.segment_bytes = parent.segment_bytes;
    a.hybrid = parent.hybrid;
    return a;
}

Task run_on(Coll &c, Group g, Args a) {
    a.topo = nullptr;
    const uint8_t levels = c.args().net_reduce_levels;
    a.net_reduce = (g.is_leaders() && (levels & Args::kNetReduceLeaders) != 0) ||
                   (g.is_owners() && (levels & Args::kNetReduceRails) != 0);
    a.net_reduce_levels = 0;
    a.span = g.is_leaders() || g.is_owners() ? Args::Span::kNet : Args::Span::kNode;
    const Algorithm *alg = c.env().select_flat(a, g.size());
    if (alg == nullptr) {
        co_return UCC_ERR_NOT_SUPPORTED;
    }
    a.radix = c.env().radix_for(*alg, a, g.size());
    a.segment_bytes = c.env().segment_for(*alg, a, g.size());
    SubgroupEnv env(c.env(), g);
    Coll level(env, a, g.index_of(c.rank()), g.size(), c.tag_base());
    level.inherit(c);
    co_return co_await alg->run(level);
}

}  // namespace ucc::coll
