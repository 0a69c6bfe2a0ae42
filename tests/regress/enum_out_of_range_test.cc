// Found by proptests Validity.InitStatusMatchesModel under ASan+UBSan (P45,
// rules V1, V2, V7, V8).
//
// ucc.h is a C API: a C caller may store any int in an enum-typed field of
// ucc_coll_args_t, and VALIDITY.md asks for UCC_ERR_INVALID_PARAM for, e.g.,
// a coll_type with a bit >= 16 (V1) or an error_type of 2 (V2). In C++, loading
// a value outside the enum's range (0..0xffff for ucc_coll_type_t, 0..1 for
// ucc_error_type_t, 0..7 for ucc_memory_type_t, 0..15 for ucc_reduction_op_t)
// is undefined behaviour, and lib/core/validate.cc loads these fields directly
// (`static_cast<uint64_t>(a.coll_type)`, `a.error_type != ...`). In a normal
// build init returns the right status and this test passes; under UBSan
// (UCC_SANITIZE=ON) the process aborts with "load of value 65536, which is not a
// valid value for type 'ucc_coll_type_t'". The library is wrong: it should
// read enum fields of user structs as their underlying integer (memcpy), as
// model/datatypes.h raw_value() does.
// Fixed; kept as a regression test. V2 has since been withdrawn (error_type is
// never read, as in the reference), so an error_type of 2 is now accepted: the
// test still shows that the junk is neither loaded nor rejected.
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "tests/regress/init_check.h"

namespace {

template <class E>
void set_raw(E &field, int64_t value) {
    const auto v = static_cast<std::underlying_type_t<E>>(value);
    std::memcpy(&field, &v, sizeof v);
}

}  // namespace

TEST(Regress, EnumOutOfRange) {
    std::vector<ucc_coll_args_t> args(2);
    for (ucc_coll_args_t &a : args) {
        a = ucc_coll_args_t{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
    }
    set_raw(args[0].coll_type, int64_t{1} << 16);  // V1: a bit >= 16
    set_raw(args[1].error_type, 2);                // never read (V2 withdrawn)
    ucc::regress::expect_init_statuses(args, {UCC_ERR_INVALID_PARAM, UCC_OK});
}
