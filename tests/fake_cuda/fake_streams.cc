// The fake component's streams (fake_streams.h).
#include "tests/fake_cuda/fake_streams.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace fake {
namespace {

constexpr int kNotReady = 600;  // cudaErrorNotReady

struct Stream {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<StreamOp> queue;
    bool running = false;  // the worker is inside an operation
    bool stop = false;
    int error = 0;
    std::thread worker;

    void work() {
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            cv.wait(lock, [&] { return stop || !queue.empty(); });
            if (queue.empty()) {
                return;  // stopped and drained
            }
            StreamOp op = std::move(queue.front());
            queue.pop_front();
            running = true;
            const bool failed = error != 0;
            lock.unlock();
            // A failed stream skips the rest of its work, as a GPU's would.
            const int rc = failed ? 0 : op();
            lock.lock();
            running = false;
            if (rc != 0 && error == 0) {
                error = rc;
            }
            cv.notify_all();
        }
    }
};

}  // namespace

void *stream_new() {
    auto *s = new Stream;
    s->worker = std::thread([s] { s->work(); });
    return s;
}

void stream_delete(void *stream) {
    auto *s = static_cast<Stream *>(stream);
    {
        std::lock_guard<std::mutex> lock(s->mu);
        s->stop = true;
    }
    s->cv.notify_all();
    s->worker.join();
    delete s;
}

int stream_query(void *stream) {
    if (stream == nullptr) {
        return 0;
    }
    auto *s = static_cast<Stream *>(stream);
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->error != 0) {
        return s->error;
    }
    return s->queue.empty() && !s->running ? 0 : kNotReady;
}

int stream_sync(void *stream) {
    if (stream == nullptr) {
        return 0;
    }
    auto *s = static_cast<Stream *>(stream);
    std::unique_lock<std::mutex> lock(s->mu);
    s->cv.wait(lock, [&] { return s->queue.empty() && !s->running; });
    return s->error;
}

int stream_enqueue(void *stream, StreamOp op) {
    if (stream == nullptr) {
        return op();
    }
    auto *s = static_cast<Stream *>(stream);
    {
        std::lock_guard<std::mutex> lock(s->mu);
        if (s->error != 0) {
            return s->error;
        }
        s->queue.push_back(std::move(op));
    }
    s->cv.notify_all();
    return 0;
}

}  // namespace fake
