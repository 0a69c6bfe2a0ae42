// Pipelined levels of a hierarchical collective (the reference's cl/hier
// <ALG>_PIPELINE variables): the vector cut into fragments, each running
// the algorithm's levels on its slice, the levels of consecutive fragments
// overlapping.
//
// A level's messages carry the instance's tag (lib/coll/subgroup.h), so two
// levels may run at once only on disjoint pairs of ranks. The levels of a
// fragment form up to three stages: `pre` and `post` within the node, `mid`
// across nodes (the node leaders or the rails). Each rank runs two lanes at
// once: the node lane runs pre and post, one level at a time, in an order
// every rank of the node derives alike, pre(0..d-1), then post(f - d),
// pre(f) for f = d.., then the last posts (d the depth: the fragments in
// flight); the network lane runs mid(0), mid(1), ... Per pair of ranks the
// messages thus follow one order on both sides. mid(f) starts once this
// rank's pre(f) ended, post(f) once its mid(f) ended: the inter-node step of
// one fragment runs while the node reduces the next and distributes the
// previous one. Every lane's levels of fragment f are those of the whole
// algorithm on the slice.
// Cost (F fragments of m/F bytes, stage times t_pre, t_mid, t_post of one):
//   T ~ t_pre + t_mid + t_post + (F - 1) max(t_pre + t_post, t_mid).
#pragma once

#include <cstdint>
#include <functional>

#include "lib/coll/coll.h"

namespace ucc::coll {

// One algorithm's pipelining: the reference's ucc_pipeline_params.
struct PipelineSetting {
    // Bytes above which the vector is cut; then into max(ceil(bytes /
    // frag_bytes), frags) fragments, depth (at most) of them in flight.
    uint64_t threshold = UINT64_MAX;
    uint64_t frag_bytes = UINT64_MAX;
    uint32_t frags = 2;
    uint32_t depth = 2;
    bool operator==(const PipelineSetting &) const = default;
};

// The four the reference has (cl/hier's ALLREDUCE_RAB_PIPELINE,
// ALLREDUCE_SPLIT_RAIL_PIPELINE, BCAST_2STEP_PIPELINE, REDUCE_2STEP_PIPELINE).
struct Pipelines {
    PipelineSetting rab;
    PipelineSetting split_rail;
    PipelineSetting bcast_2step;
    PipelineSetting reduce_2step;
    bool operator==(const Pipelines &) const = default;
};

// How many fragments `count` elements of `esize` bytes take under `s` (1:
// not pipelined; at most one per element), and how many of them may be in
// flight (*depth, at least 1).
uint32_t pipeline_fragments(const PipelineSetting &s, uint64_t count, uint64_t esize,
                            uint32_t *depth);
// The same for a's vector under its algorithm's setting `which` of
// a.pipelines (none set: 1 fragment, depth 1).
uint32_t pipeline_fragments(const Args &a, PipelineSetting Pipelines::*which, uint32_t *depth);

// A level's arguments `x` over the whole vector of `count` elements, for
// fragment f of `frags`: its slice of src and dst (those set) and its count.
Args fragment(Args x, uint64_t count, uint32_t frags, uint32_t f);

// A stage: the level this rank runs for fragment f, or an empty Task when it
// has no part in the stage (a rank that leads no node has no mid). An
// empty function: the algorithm has no such stage.
using Stage = std::function<Task(uint32_t f)>;

// Runs `frags` fragments through the stages, `depth` in flight.
Task run_pipeline(Coll &c, uint32_t frags, uint32_t depth, const Stage &pre, const Stage &mid,
                  const Stage &post);

}  // namespace ucc::coll
