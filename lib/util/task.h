// Task: the coroutine type every algorithm returns.
//
// A Task is lazy: it starts when awaited (by a parent Task) or when its owner
// calls start(). Completion of a child resumes its parent by symmetric
// transfer; completion of a top-level Task calls the owner's `on_done` hook.
// Destroying a Task destroys its frame and, transitively, every child frame it
// is awaiting, which cancels their transfers (see lib/coll/coll.h: Req).
//
// Frames: a coroutine whose first parameter is a FrameSource (every algorithm:
// `Task alg(Coll &c, ...)`) takes its frame from that source's pool, so that a
// collective in steady state allocates nothing; any other from the heap.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <utility>

#include "lib/util/pool.h"
#include "ucc/api/ucc.h"

namespace ucc {

// The status a caught exception becomes: UCC_ERR_NO_MEMORY for a failed
// allocation, UCC_ERR_NO_MESSAGE for anything else. Call inside a handler.
inline ucc_status_t status_of_current_exception() noexcept {
    try {
        throw;
    } catch (const std::bad_alloc &) {
        return UCC_ERR_NO_MEMORY;
    } catch (...) {
        return UCC_ERR_NO_MESSAGE;
    }
}

// Where coroutine frames come from (nullptr: the heap).
struct FrameSource {
    Pool *frame_pool = nullptr;
};

// Called when a top-level task finishes.
class TaskOwner {
  public:
    virtual ~TaskOwner() = default;
    virtual void on_task_done(ucc_status_t status) = 0;
};

class Task {
  public:
    struct promise_type {
        ucc_status_t status = UCC_OK;
        std::coroutine_handle<> continuation;
        TaskOwner *owner = nullptr;

        // The frame remembers the pool it came from (Pool::allocate_in).
        template <class... A>
        static void *operator new(size_t bytes, FrameSource &src, A &...) {
            return Pool::allocate_in(src.frame_pool, bytes);
        }
        static void *operator new(size_t bytes) { return Pool::allocate_in(nullptr, bytes); }
        static void operator delete(void *frame, size_t bytes) noexcept {
            Pool::deallocate_in(frame, bytes);
        }

        Task get_return_object() {
            return Task(std::coroutine_handle<promise_type>::from_promise(*this));
        }
        std::suspend_always initial_suspend() noexcept { return {}; }

        struct FinalAwaiter {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
                promise_type &p = h.promise();
                if (p.continuation) {
                    return p.continuation;
                }
                if (p.owner != nullptr) {
                    p.owner->on_task_done(p.status);
                }
                return std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        FinalAwaiter final_suspend() noexcept { return {}; }
        void return_value(ucc_status_t s) { status = s; }
        // Algorithms report errors by status. An exception that escapes one
        // (an allocation that failed inside the transport or the library, a
        // child frame that could not be allocated) ends the task with a
        // status as well, so that the collective fails and the process lives.
        void unhandled_exception() noexcept { status = status_of_current_exception(); }
    };

    Task() = default;
    explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
    Task(Task &&o) noexcept : h_(std::exchange(o.h_, {})) {}
    Task &operator=(Task &&o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, {});
        }
        return *this;
    }
    Task(const Task &) = delete;
    Task &operator=(const Task &) = delete;
    ~Task() { reset(); }

    bool valid() const { return static_cast<bool>(h_); }
    bool done() const { return h_ && h_.done(); }
    ucc_status_t status() const { return h_.promise().status; }

    // Run a top-level task until its first suspension; `owner` hears of its end.
    void start(TaskOwner *owner) {
        h_.promise().owner = owner;
        h_.resume();
    }
    void reset() {
        if (h_) {
            h_.destroy();
            h_ = {};
        }
    }

    // Awaiting a child task runs it; the parent resumes when it finishes.
    struct Awaiter {
        std::coroutine_handle<promise_type> h;
        bool await_ready() noexcept { return false; }
        std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
            h.promise().continuation = parent;
            return h;
        }
        ucc_status_t await_resume() noexcept { return h.promise().status; }
    };
    Awaiter operator co_await() &noexcept { return Awaiter{h_}; }
    Awaiter operator co_await() &&noexcept { return Awaiter{h_}; }

  private:
    std::coroutine_handle<promise_type> h_;
};

}  // namespace ucc
