// The buffer layout of every collective (layout.h), as API.md §4.2 states it.
#include "model/layout.h"

#include "ucc/api/ucc.h"

namespace ucc::model {

Layout layout_of(uint64_t coll_type, bool in_place, bool is_root) {
    const bool root_in_place = in_place && is_root;
    Layout l;
    auto set = [&l](Desc src, Holds src_holds, Desc dst, Holds dst_holds) {
        l.src = {src, src == Desc::kUnused ? Holds::kNothing : src_holds};
        l.dst = {dst, dst == Desc::kUnused ? Holds::kNothing : dst_holds};
    };
    constexpr Desc kNone = Desc::kUnused;
    switch (coll_type) {
        case UCC_COLL_TYPE_ALLGATHER:
            set(in_place ? kNone : Desc::kInfoBlock, Holds::kOwnBlock, Desc::kInfo,
                Holds::kAllBlocks);
            break;
        case UCC_COLL_TYPE_ALLGATHERV:
            set(in_place ? kNone : Desc::kInfo, Holds::kOwnBlock, Desc::kInfoV, Holds::kAllBlocks);
            break;
        case UCC_COLL_TYPE_ALLREDUCE:
            set(in_place ? kNone : Desc::kInfo, Holds::kVector, Desc::kInfo, Holds::kVector);
            break;
        case UCC_COLL_TYPE_ALLTOALL:
            set(in_place ? kNone : Desc::kInfo, Holds::kPeerBlocks, Desc::kInfo,
                Holds::kPeerBlocks);
            break;
        case UCC_COLL_TYPE_ALLTOALLV:
            set(in_place ? kNone : Desc::kInfoV, Holds::kPeerBlocks, Desc::kInfoV,
                Holds::kPeerBlocks);
            break;
        case UCC_COLL_TYPE_BCAST:
            set(Desc::kInfo, Holds::kVector, kNone, Holds::kNothing);
            return l;  // IN_PLACE ignored
        case UCC_COLL_TYPE_GATHER:
            set(root_in_place ? kNone : Desc::kInfoBlock, Holds::kOwnBlock,
                is_root ? Desc::kInfo : kNone, Holds::kAllBlocks);
            break;
        case UCC_COLL_TYPE_GATHERV:
            set(root_in_place ? kNone : Desc::kInfo, Holds::kOwnBlock,
                is_root ? Desc::kInfoV : kNone, Holds::kAllBlocks);
            break;
        case UCC_COLL_TYPE_REDUCE:
            set(root_in_place ? kNone : Desc::kInfo, Holds::kVector, is_root ? Desc::kInfo : kNone,
                Holds::kVector);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            set(in_place ? kNone : Desc::kInfo, Holds::kAllBlocks,
                in_place ? Desc::kInfo : Desc::kInfoBlock,
                in_place ? Holds::kAllBlocks : Holds::kOwnBlock);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            set(in_place ? kNone : Desc::kInfo, Holds::kAllBlocks, Desc::kInfoVNoDispl,
                in_place ? Holds::kAllBlocks : Holds::kOwnBlock);
            break;
        case UCC_COLL_TYPE_SCATTER:
            set(is_root ? Desc::kInfo : kNone, Holds::kAllBlocks,
                root_in_place ? kNone : Desc::kInfoBlock, Holds::kOwnBlock);
            return l;  // the root's input stays in src
        case UCC_COLL_TYPE_SCATTERV:
            set(is_root ? Desc::kInfoV : kNone, Holds::kAllBlocks,
                root_in_place ? kNone : Desc::kInfo, Holds::kOwnBlock);
            return l;
        default:  // barrier, fanin, fanout
            return l;
    }
    l.input_in_dst = in_place && !l.src.used() && l.dst.used();
    return l;
}

}  // namespace ucc::model
