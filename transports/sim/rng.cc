// Seeding the simulator's PRNG (rng.h) through splitmix64.
#include "transports/sim/rng.h"

namespace ucc::sim {

namespace {

uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(uint64_t seed) {
    uint64_t st = seed;
    for (uint64_t &w : s_) {
        w = splitmix64(&st);
    }
}

}  // namespace ucc::sim
