// Replay results against the model (verify.h).
#include "traces/verify.h"

#include <algorithm>
#include <exception>

#include "model/oracle.h"
#include "traces/names.h"

namespace ucc::traces {

namespace {

// Points the copied arguments at the copies of their buffers and arrays.
void rebase(ucc_coll_args_t &a, const InitRec &rec, std::vector<uint8_t> &src,
            std::vector<uint8_t> &dst, std::vector<uint64_t> (&arrays)[4]) {
    auto fix = [&](auto &side, const Buffer &b, std::vector<uint8_t> &mem, int which) {
        void *p = mem.empty() ? nullptr : mem.data();
        if (!b.used) {
            return;
        }
        if (b.v) {
            side.info_v.buffer = p;
            if (side.info_v.counts != nullptr) {
                side.info_v.counts = reinterpret_cast<ucc_count_t *>(arrays[which * 2].data());
            }
            if (side.info_v.displacements != nullptr) {
                side.info_v.displacements =
                    reinterpret_cast<ucc_aint_t *>(arrays[which * 2 + 1].data());
            }
        } else {
            side.info.buffer = p;
        }
    };
    fix(a.src, rec.src, src, 0);
    fix(a.dst, rec.dst, dst, 1);
}

void copy_arrays(const ucc_coll_args_t &a, const InitRec &rec, std::vector<uint64_t> (&arrays)[4]) {
    auto take = [&](const auto &side, const Buffer &b, int which) {
        if (!b.used || !b.v) {
            return;
        }
        const size_t n = b.counts.size();
        const auto *c = reinterpret_cast<const uint64_t *>(side.info_v.counts);
        const auto *d = reinterpret_cast<const uint64_t *>(side.info_v.displacements);
        if (c != nullptr) {
            arrays[which * 2].assign(c, c + n);
        }
        if (d != nullptr) {
            arrays[which * 2 + 1].assign(d, d + n);
        }
    };
    take(a.src, rec.src, 0);
    take(a.dst, rec.dst, 1);
}

}  // namespace

void Verifier::posted(const InstanceKey &k, uint32_t team_rank, const ucc_coll_args_t &a,
                      const InitRec &rec, const std::vector<uint8_t> &src,
                      const std::vector<uint8_t> &dst, const std::string &where) {
    Instance &inst = open_[k];
    if (inst.parts.empty()) {
        inst.parts.resize(k.members.size());
    }
    if (team_rank >= inst.parts.size() || inst.parts[team_rank].posted) {
        return;
    }
    Part &p = inst.parts[team_rank];
    p.posted = true;
    p.args = a;
    p.src = src;
    p.dst = dst;
    p.where = where;
    copy_arrays(a, rec, p.arrays);
    rebase(p.args, rec, p.src, p.dst, p.arrays);
    ++inst.posted;
    check(k, inst);
}

void Verifier::completed(const InstanceKey &k, uint32_t team_rank, const std::vector<uint8_t> &src,
                         const std::vector<uint8_t> &dst) {
    const auto it = open_.find(k);
    if (it == open_.end() || team_rank >= it->second.parts.size()) {
        return;
    }
    Part &p = it->second.parts[team_rank];
    if (!p.posted || p.done) {
        return;
    }
    p.done = true;
    p.src_after = src;
    p.dst_after = dst;
    ++it->second.done;
    check(k, it->second);
}

void Verifier::check(const InstanceKey &k, Instance &inst) {
    const uint32_t n = static_cast<uint32_t>(inst.parts.size());
    if (inst.posted < n || inst.done < n) {
        return;
    }
    std::vector<ucc_coll_args_t> args(n);
    for (uint32_t r = 0; r < n; ++r) {
        args[r] = inst.parts[r].args;
    }
    model::Expected e;
    try {
        e = model::expected(n, args);
    } catch (const std::exception &) {
        // The members disagree on the collective (desynchronised): the trace
        // check reports that; there is no one right result to check.
        ++unverifiable;
        open_.erase(k);
        return;
    }
    for (uint32_t r = 0; r < n; ++r) {
        Part &p = inst.parts[r];
        const struct {
            const char *name;
            std::vector<uint8_t> &before;
            std::vector<uint8_t> &after;
        } bufs[2] = {{"src", p.src, p.src_after}, {"dst", p.dst, p.dst_after}};
        for (const auto &b : bufs) {
            if (b.before.empty()) {
                continue;
            }
            const std::vector<uint8_t> want =
                model::expected_image(b.before.data(), b.before.size(), e.writes[r]);
            if (want == b.after) {
                continue;
            }
            size_t at = 0;
            while (at < want.size() && at < b.after.size() && want[at] == b.after[at]) {
                ++at;
            }
            const char *coll = coll_name(static_cast<uint64_t>(args[r].coll_type));
            problems.push_back(p.where + ": rank " + std::to_string(r) +
                               " of the team: " + (coll != nullptr ? coll : "?") + " " + b.name +
                               " differs from the model at byte " + std::to_string(at) + " of " +
                               std::to_string(want.size()));
            break;
        }
    }
    ++verified;
    open_.erase(k);
}

}  // namespace ucc::traces
