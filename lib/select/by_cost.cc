// Selection by cost: the cheapest predicted algorithm (lib/cost) on the
// team's network, flat or, where cl/hier may run (UCC_CLS with hier and a
// team over several nodes), hierarchical; and when it applies.
#include <cstdio>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/coll/coll_types.h"
#include "lib/select/memo.h"
#include "lib/select/select.h"

namespace ucc::select {

namespace {

std::string micros(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
    return buf;
}

const coll::Algorithm *predict_cheapest(const Query &q, const coll::Args &args, std::string *why) {
    // Predicted from what every member passes alike: in place is a rooted
    // collective's root's alone, and may differ by rank elsewhere too.
    coll::Args same = args;
    same.inplace = false;
    const coll::Algorithm *best = nullptr;
    double best_s = 0;
    double next_s = -1;  // the runner-up's
    const coll::Algorithm *next = nullptr;
    for (const coll::Algorithm &a : coll::algorithms(q.type)) {
        if ((above_host(a) && !a.hierarchical) || (a.hierarchical && q.topo == nullptr) ||
            a.onesided || !a.supports(args, q.team_size)) {
            continue;
        }
        const double s = cost::predict(a, same, q.team_size, *q.net);
        if (s < 0) {
            continue;
        }
        if (best == nullptr || s < best_s) {
            next = best;
            next_s = best_s;
            best = &a;
            best_s = s;
        } else if (next == nullptr || s < next_s) {
            next = &a;
            next_s = s;
        }
    }
    if (why != nullptr && best != nullptr) {
        *why = std::string("the cheapest predicted: ") + best->name + ", " + micros(best_s) +
               (next != nullptr ? std::string(" (next: ") + next->name + ", " + micros(next_s) + ")"
                                : std::string(" (the only one with a formula)"));
    }
    return best;
}

}  // namespace

bool by_cost(const Query &q, const coll::Args *args) {
    return q.net != nullptr && args != nullptr && !coll::is_v(q.type);
}

bool above_host(const coll::Algorithm &a) {
    return a.hierarchical || a.score != 0;
}

bool by_cost_among(const coll::Algorithm &a) {
    return !above_host(a) || a.hierarchical;
}

const coll::Algorithm *cheapest(const Query &q, const coll::Args &args, std::string *why) {
    if (why != nullptr || q.memo == nullptr) {
        return predict_cheapest(q, args, why);
    }
    const MemoKey key = memo_key(q, args);
    const coll::Algorithm *alg = nullptr;
    if (!q.memo->find(key, &alg)) {
        alg = predict_cheapest(q, args, nullptr);
        q.memo->remember(key, alg);
    }
    return alg;
}

}  // namespace ucc::select
