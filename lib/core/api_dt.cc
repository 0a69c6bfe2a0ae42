// C API for user-defined (generic) datatypes: ucc_dt_create_generic and ucc_dt_destroy
// (API.md §2.2). The handle is the address of a 16-byte-aligned ucc::dt::Generic OR-ed
// with UCC_DATATYPE_GENERIC; everything else about datatypes lives in lib/dt.
#include <cstdint>
#include <cstdio>

#include "lib/dt/dt.h"
#include "lib/util/common.h"

namespace {

ucc_status_t invalid(const char *what) {
    std::fprintf(stderr, "[ucc] ERROR ucc_dt_create_generic: %s\n", what);
    return UCC_ERR_INVALID_PARAM;
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_dt_create_generic(const ucc_generic_dt_ops_t *ops, void *context,
                                              ucc_datatype_t *datatype_p) {
    return ucc::api_guard("ucc_dt_create_generic", [&]() -> ucc_status_t {
        if (ops == nullptr) {
            return invalid("ops is NULL");
        }
        if (datatype_p == nullptr) {
            return invalid("datatype_p is NULL");
        }
        ucc::dt::Generic desc{*ops, context};
        if ((desc.ops.mask & UCC_GENERIC_DT_OPS_FIELD_FLAGS) == 0) {
            desc.ops.flags = 0;  // flags is only meaningful under its mask bit
        }
        if ((desc.ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0) {
            if (desc.ops.contig_size == 0) {
                return invalid("ops->contig_size is 0 with UCC_GENERIC_DT_OPS_FLAG_CONTIG set");
            }
        } else if (desc.ops.start_pack == nullptr || desc.ops.pack == nullptr ||
                   desc.ops.start_unpack == nullptr || desc.ops.unpack == nullptr ||
                   desc.ops.packed_size == nullptr || desc.ops.finish == nullptr) {
            return invalid(
                "ops is not CONTIG and lacks one of start_pack, pack, start_unpack, unpack, "
                "packed_size, finish");
        }
        auto *g = new ucc::dt::Generic(desc);  // nothing after it can fail
        *datatype_p = static_cast<ucc_datatype_t>(reinterpret_cast<uintptr_t>(g)) |
                      static_cast<ucc_datatype_t>(UCC_DATATYPE_GENERIC);
        return UCC_OK;
    });
}

UCC_EXPORT void ucc_dt_destroy(ucc_datatype_t datatype) {
    (void)ucc::api_guard("ucc_dt_destroy", [&]() -> ucc_status_t {
        // Predefined (and invalid) handles: nothing to free.
        delete ucc::dt::generic_of(datatype);
        return UCC_OK;
    });
}
