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
    const std::string base =
        dir + (dir.empty() || dir.back() == '/' ? "" : "/") + "rank" + std::to_string(h.rank);
    for (int k = 0; k < kMaxSuffix && !r->file_; ++k) {
        r->path_ = base + (k == 0 ? "" : "." + std::to_string(k)) + ".jsonl";
        bool exists = false;
        r->file_ = FileWriter::create(r->path_, error, &exists);
        if (!r->file_ && !exists) {
            return nullptr;
        }
    }
    if (!r->file_) {
        return nullptr;
    }
    emit(h, &r->line_);
    if (!r->file_->append(r->line_)) {
        *error = r->path_ + ": cannot write the header";
        return nullptr;
    }
    return r;
}

bool Recorder::write(const Record &rec) {
    if (failed_) {
        return true;  // said once already
    }
    line_.clear();
    emit(rec, &line_);
    if (!file_->append(line_)) {
        failed_ = true;
        return false;
    }
    return true;
}

void Recorder::end(int64_t t) {
    if (!failed_) {
        write(EndRec{t, 0});
    }
    file_->close();
}

}  // namespace ucc::traces
