// Predicted times: the formula of an algorithm by (type, name).
#include "lib/cost/cost.h"

#include <cstring>

#include "lib/coll/radix.h"
#include "lib/cost/formulas.h"

namespace ucc::cost {

double predict(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p) {
    if (n == 0) {
        return -1;
    }
    for (auto family : {reduction_formulas, tree_formulas, exchange_formulas, pipeline_formulas,
                        level_formulas}) {
        for (const Formula &f : family()) {
            if (f.type == alg.type && std::strcmp(f.name, alg.name) == 0) {
                if (a.radixes == nullptr) {
                    return p.o_call + f.fn(a, n, p);
                }
                coll::Args b = a;  // with the radix this algorithm runs with
                b.radix = coll::radix_for(alg, a, n);
                return p.o_call + f.fn(b, n, p);
            }
        }
    }
    return -1;
}

}  // namespace ucc::cost
