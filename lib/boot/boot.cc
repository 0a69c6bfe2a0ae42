// Bootstrap over the store: init, OOB allgather rounds, barrier, finish.
#include "lib/boot/boot.h"

#include <algorithm>
#include <cstring>

#include "lib/util/common.h"

namespace ucc::boot {

namespace {

// The store host waits at most this long for the others to disconnect.
constexpr std::chrono::milliseconds kDrainMax{10000};

}  // namespace

ucc_status_t RoundRequest::finish(ucc_status_t st) {
    status_ = st;
    if (st < 0) {
        UCC_LOG(log_, kError, "%s failed: %s", name_.c_str(), ucc_status_string(st));
    }
    return st;
}

ucc_status_t RoundRequest::test() {
    if (status_ != UCC_INPROGRESS) {
        return status_;
    }
    ucc_status_t st = client_->test(set_);
    if (st < 0) {
        return finish(st);
    }
    st = client_->test(get_);
    if (st != UCC_OK) {
        return st < 0 ? finish(st) : UCC_INPROGRESS;
    }
    if (set_->status != UCC_OK) {
        // The get cannot complete before our own set, which precedes it on
        // the connection; still, only report success once both are in.
        return UCC_INPROGRESS;
    }
    if (get_->values.size() != n_) {
        UCC_LOG(log_, kError, "%s: the store returned %zu values for %u ranks", name_.c_str(),
                get_->values.size(), n_);
        return finish(UCC_ERR_NO_MESSAGE);
    }
    for (uint32_t r = 0; r < n_; ++r) {
        if (get_->values[r].size() != bytes_) {
            UCC_LOG(log_, kError, "%s: rank %u contributed %zu bytes, this rank %zu", name_.c_str(),
                    r, get_->values[r].size(), bytes_);
            return finish(UCC_ERR_INVALID_PARAM);
        }
    }
    if (bytes_ > 0) {
        for (uint32_t r = 0; r < n_; ++r) {
            std::memcpy(static_cast<char *>(rbuf_) + r * bytes_, get_->values[r].data(), bytes_);
        }
    }
    get_.reset();  // the reply's memory
    status_ = UCC_OK;
    return status_;
}

ucc_status_t RoundRequest::wait() {
    if (status_ != UCC_INPROGRESS) {
        return status_;
    }
    ucc_status_t st = client_->wait(set_);
    if (st == UCC_OK) {
        st = client_->wait(get_);
    }
    return st < 0 ? finish(st) : test();
}

Boot::Boot(const BootEnv &env, std::chrono::milliseconds timeout, core::LogLevel level)
    : env_(env), timeout_(timeout), log_(level) {
    log_.set_prefix("ucc_boot rank " + std::to_string(env.rank) + "/" + std::to_string(env.size));
}

Boot::~Boot() {
    if (client_) {
        client_->close();
    }
    if (server_) {
        server_->stop();
    }
}

ucc_status_t Boot::start() {
    std::string host = env_.store_host;
    uint16_t port = env_.store_port;
    if (env_.host_store) {
        server_ = std::make_unique<StoreServer>();
        server_->set_log_level(log_.level());
        ucc_status_t st = server_->start(host, port);
        if (st != UCC_OK) {
            UCC_LOG(log_, kError, "cannot host the store at %s (%s)",
                    format_address(host, port).c_str(), env_.origin.c_str());
            return st;
        }
        port = server_->port();
    }
    client_ = std::make_shared<StoreClient>();
    client_->set_log_level(log_.level());
    client_->set_op_timeout(timeout_);
    UCC_LOG(log_, kDebug, "%s; store %s%s", env_.origin.c_str(), format_address(host, port).c_str(),
            env_.host_store ? " (hosted here)" : "");
    UCC_TRY(client_->connect(host, port, timeout_));
    int64_t epoch = 0;
    UCC_TRY(client_->add("ucc_boot/epoch/" + std::to_string(env_.rank), 1, &epoch));
    prefix_ = "ucc_boot/" + std::to_string(epoch) + "/";
    // This rank's keys of every round (<prefix><kind>/<k>/<rank>) are its
    // own: when its connection drops, the others' rounds fail at once,
    // naming it, instead of waiting their timeout.
    const std::string name = "rank " + std::to_string(env_.rank);
    UCC_TRY(client_->wait(client_->post_own(prefix_, "/" + std::to_string(env_.rank), name)));
    return barrier();
}

std::unique_ptr<RoundRequest> Boot::post_round(const char *kind, uint64_t round, const void *sbuf,
                                               void *rbuf, size_t bytes, std::string name) {
    auto req = std::make_unique<RoundRequest>();
    std::string base = prefix_ + kind + "/" + std::to_string(round) + "/";
    std::vector<std::string> keys(env_.size);
    for (uint32_t r = 0; r < env_.size; ++r) {
        keys[r] = base + std::to_string(r);
    }
    req->client_ = client_;
    req->rbuf_ = rbuf;
    req->bytes_ = bytes;
    req->n_ = env_.size;
    req->name_ = std::move(name);
    req->log_ = log_;
    // Pipelined: the set and the get go out back to back, one round trip.
    req->set_ = client_->post_set(keys[env_.rank], sbuf, bytes, env_.size);
    req->get_ = client_->post_get(keys, timeout_);
    return req;
}

std::unique_ptr<RoundRequest> Boot::post_allgather(const void *sbuf, void *rbuf, size_t bytes) {
    uint64_t k = allgathers_++;
    return post_round("ag", k, sbuf, rbuf, bytes,
                      "OOB allgather " + std::to_string(k) + " (" + std::to_string(bytes) +
                          " bytes per rank, store " + client_->address() + ")");
}

ucc_status_t Boot::barrier() {
    uint64_t k = barriers_++;
    auto req = post_round("b", k, nullptr, nullptr, 0,
                          "barrier " + std::to_string(k) + " (store " + client_->address() + ")");
    return req->wait();
}

ucc_status_t Boot::finish() {
    // Every rank connected before any init returned, so the host may stop
    // accepting now: a rank that restarts early cannot reach this store.
    if (server_) {
        server_->stop_accepting();
    }
    ucc_status_t st = client_ ? barrier() : UCC_OK;
    if (client_) {
        client_->close();
    }
    if (server_) {
        // The others leave once they have read the barrier's reply.
        if (st == UCC_OK && !server_->wait_idle(std::min(timeout_, kDrainMax))) {
            UCC_LOG(log_, kWarn, "%zu ranks still connected to the store at shutdown",
                    server_->clients());
        }
        server_->stop();
    }
    return st;
}

}  // namespace ucc::boot
