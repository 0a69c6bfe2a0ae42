// The context's trace recorder (recorder.h).
#include "traces/recorder.h"

#include "traces/emit.h"

namespace ucc::traces {

namespace {

constexpr int kMaxSuffix = 1000;

}  // namespace

std::unique_ptr<Recorder> Recorder::open(const std::string &dir, const Header &h,
                                         std::string *error) {
    auto r = std::make_unique<Recorder>();
    r->dir_ = dir;
    r->header_ = h;
    if (!r->create(error)) {
        return nullptr;
    }
    return r;
}

std::unique_ptr<Recorder> Recorder::open_unnamed(const std::string &dir, const Header &h) {
    auto r = std::make_unique<Recorder>();
    r->dir_ = dir;
    r->header_ = h;
    r->path_ = dir + " (not named yet)";
    return r;
}

bool Recorder::name(uint64_t rank, uint64_t size, std::string *error) {
    if (named()) {
        return true;
    }
    header_.rank = rank;
    header_.size = size;
    if (!create(error)) {
        failed_ = true;
        waiting_.clear();
        return false;
    }
    return true;
}

bool Recorder::create(std::string *error) {
    const std::string base = dir_ + (dir_.empty() || dir_.back() == '/' ? "" : "/") + "rank" +
                             std::to_string(header_.rank);
    for (int k = 0; k < kMaxSuffix && !file_; ++k) {
        path_ = base + (k == 0 ? "" : "." + std::to_string(k)) + ".jsonl";
        bool exists = false;
        file_ = FileWriter::create(path_, error, &exists);
        if (!file_ && !exists) {
            return false;
        }
    }
    if (!file_) {
        *error = base + ".jsonl: " + std::to_string(kMaxSuffix) +
                 " traces of this rank are there already";
        return false;
    }
    line_.clear();
    emit(header_, &line_);
    if (!file_->append(line_) || (!waiting_.empty() && !file_->append(waiting_))) {
        *error = path_ + ": cannot write the header";
        file_.reset();
        return false;
    }
    waiting_.clear();
    waiting_.shrink_to_fit();
    header_ = Header{};
    return true;
}

bool Recorder::write(const Record &rec) {
    if (failed_) {
        return true;  // said once already
    }
    line_.clear();
    emit(rec, &line_);
    if (!file_) {
        waiting_ += line_;  // unnamed
        return true;
    }
    if (!file_->append(line_)) {
        failed_ = true;
        return false;
    }
    return true;
}

void Recorder::close() {
    std::string error;
    if (!named() && !create(&error)) {
        failed_ = true;
        return;
    }
    if (file_) {
        file_->close();
    }
}

void Recorder::end(int64_t t) {
    if (!failed_) {
        write(EndRec{t, 0});
    }
    close();
}

}  // namespace ucc::traces
