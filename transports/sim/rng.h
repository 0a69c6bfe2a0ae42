// The simulator's PRNG: xoshiro256**, seeded through splitmix64. The cluster
// draws everything random in a run (event tie-breaks, jitter, delay spikes,
// thread switches) from streams of it, each seeded from the run's seed. The
// seeding is in rng.cc.
#pragma once

#include <cstdint>

namespace ucc::sim {

// xoshiro256**, seeded through splitmix64.
class Rng {
  public:
    explicit Rng(uint64_t seed);
    uint64_t next();
    // Uniform in [0, bound] (bound inclusive).
    uint64_t upto(uint64_t bound);

  private:
    uint64_t s_[4];
};

// The draws are inline: the event loop makes one or more per event.
inline uint64_t Rng::next() {
    auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    uint64_t result = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

inline uint64_t Rng::upto(uint64_t bound) {
    if (bound == UINT64_MAX) {
        return next();
    }
    // Lemire's multiply-shift with rejection: unbiased.
    uint64_t range = bound + 1;
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * range;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < range) {
        uint64_t threshold = (0 - range) % range;
        while (low < threshold) {
            m = static_cast<unsigned __int128>(next()) * range;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

}  // namespace ucc::sim
