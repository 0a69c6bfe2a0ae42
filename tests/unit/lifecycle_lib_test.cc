// The C API's lifecycle outside the simulator: library and context
// configuration, init/finalize, attributes, versions and status strings, a
// context without OOB (loopback transport) with teams of one running every
// implemented collective, memory maps, and every NULL-argument class of the C
// API (API.md §1, §2; docs/status.md, "Lifecycle").
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"

namespace {

// C callers may store any int in an enum field; from C++ a value outside the
// enum's range is undefined behaviour, and the sanitizer build (ASan and UBSan
// together) aborts on the library's load of it. Such cases run only in
// unsanitized builds (as in proptests/validity_props.cc).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// Everything a callback writes into a FILE*, as a string.
std::string capture(const std::function<void(FILE *)> &fn) {
    FILE *f = std::tmpfile();
    if (f == nullptr) {
        ADD_FAILURE() << "tmpfile() failed";
        return "";
    }
    fn(f);
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[4096];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof(buf), f)) > 0) {
        s.append(buf, k);
    }
    std::fclose(f);
    return s;
}

std::string print_lib_config(ucc_lib_config_h c, const char *title = "lib",
                             unsigned flags = UCC_CONFIG_PRINT_CONFIG) {
    return capture([&](FILE *f) {
        ucc_lib_config_print(c, f, title, static_cast<ucc_config_print_flags_t>(flags));
    });
}

std::string print_ctx_config(ucc_context_config_h c, const char *title = "ctx",
                             unsigned flags = UCC_CONFIG_PRINT_CONFIG) {
    return capture([&](FILE *f) {
        ucc_context_config_print(c, f, title, static_cast<ucc_config_print_flags_t>(flags));
    });
}

bool has_line(const std::string &text, const std::string &line) {
    size_t pos = 0;
    while ((pos = text.find(line, pos)) != std::string::npos) {
        bool starts = pos == 0 || text[pos - 1] == '\n';
        bool ends = pos + line.size() == text.size() || text[pos + line.size()] == '\n';
        if (starts && ends) {
            return true;
        }
        pos += line.size();
    }
    return false;
}

// Sets (or unsets, value == nullptr) an environment variable for one scope.
class ScopedEnv {
  public:
    ScopedEnv(const char *name, const char *value) : name_(name) {
        const char *old = std::getenv(name);
        had_ = old != nullptr;
        if (had_) {
            old_ = old;
        }
        if (value != nullptr) {
            setenv(name, value, 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (had_) {
            setenv(name_.c_str(), old_.c_str(), 1);
        } else {
            unsetenv(name_.c_str());
        }
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    std::string name_;
    std::string old_;
    bool had_ = false;
};

// A file with the given contents, removed at scope exit.
class TempFile {
  public:
    explicit TempFile(const std::string &contents) {
        std::string tmpl = ::testing::TempDir() + "ucc_lifecycle_XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        int fd = mkstemp(buf.data());
        if (fd < 0) {
            ADD_FAILURE() << "mkstemp failed";
            return;
        }
        path_ = buf.data();
        ssize_t w = write(fd, contents.data(), contents.size());
        EXPECT_EQ(w, static_cast<ssize_t>(contents.size()));
        close(fd);
    }
    ~TempFile() {
        if (!path_.empty()) {
            std::remove(path_.c_str());
        }
    }
    TempFile(const TempFile &) = delete;
    TempFile &operator=(const TempFile &) = delete;
    const char *path() const { return path_.c_str(); }

  private:
    std::string path_;
};

ucc_status_t init_lib(ucc_lib_h *lib, ucc_lib_config_h cfg = nullptr) {
    ucc_lib_params_t p{};
    p.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    p.thread_mode = UCC_THREAD_SINGLE;
    return ucc_init(&p, cfg, lib);
}

ucc_status_t create_local_context(ucc_lib_h lib, ucc_context_h *ctx,
                                  ucc_context_config_h cfg = nullptr) {
    ucc_context_params_t p{};
    return ucc_context_create(lib, &p, cfg, ctx);
}

// Posts team creation and drives it to its end.
ucc_status_t create_team(ucc_context_h ctx, const ucc_team_params_t &tp, ucc_team_h *team) {
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, team);
    if (st != UCC_OK) {
        return st;
    }
    for (int i = 0; i < 1000000; ++i) {
        st = ucc_team_create_test(*team);
        if (st != UCC_INPROGRESS) {
            return st;
        }
        ucc_context_progress(ctx);
    }
    return UCC_INPROGRESS;
}

ucc_team_params_t solo_params() {
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    tp.team_size = 1;
    return tp;
}

ucc_status_t destroy_team(ucc_team_h team) {
    ucc_status_t st;
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
    }
    return st;
}

// Progresses until the request leaves UCC_INPROGRESS (bounded) and returns its status.
ucc_status_t wait_request(ucc_context_h ctx, ucc_coll_req_h req) {
    for (int i = 0; i < 1000000; ++i) {
        ucc_status_t st = ucc_collective_test(req);
        if (st != UCC_INPROGRESS) {
            return st;
        }
        ucc_context_progress(ctx);
    }
    return UCC_INPROGRESS;
}

// init + post + wait + finalize; the first failure's status.
ucc_status_t run_collective(ucc_context_h ctx, ucc_team_h team, ucc_coll_args_t args) {
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(&args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    if (ucc_collective_test(req) != UCC_OPERATION_INITIALIZED) {
        ucc_collective_finalize(req);
        return UCC_ERR_NO_MESSAGE;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        st = wait_request(ctx, req);
    }
    ucc_status_t fst = ucc_collective_finalize(req);
    return st != UCC_OK ? st : fst;
}

ucc_coll_buffer_info_t info(void *buf, uint64_t count, ucc_datatype_t dt) {
    return ucc_coll_buffer_info_t{buf, count, dt, UCC_MEMORY_TYPE_HOST};
}

}  // namespace

// ---------------------------------------------------------------------------
// Library configuration
// ---------------------------------------------------------------------------

TEST(LifecycleLibConfig, ReadModifyPrintRelease) {
    ScopedEnv env("UCC_LOG_LEVEL", nullptr);
    ucc_lib_config_h cfg = nullptr;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
    ASSERT_NE(cfg, nullptr);
    std::string text = print_lib_config(cfg);
    EXPECT_NE(text.find("UCC_LOG_LEVEL"), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, "UCC_LOG_LEVEL=WARN")) << text;

    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", "ERROR"), UCC_OK);
    EXPECT_TRUE(has_line(print_lib_config(cfg), "UCC_LOG_LEVEL=ERROR"));
    // Unknown name, bad value: the old value stays.
    EXPECT_EQ(ucc_lib_config_modify(cfg, "NO_SUCH_VARIABLE", "1"), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", "LOUD"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", ""), UCC_ERR_INVALID_PARAM);
    EXPECT_TRUE(has_line(print_lib_config(cfg), "UCC_LOG_LEVEL=ERROR"));
    for (const char *lvl : {"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"}) {
        EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", lvl), UCC_OK) << lvl;
    }

    // The header and doc flags, and the title.
    std::string full = print_lib_config(
        cfg, "My Title", UCC_CONFIG_PRINT_CONFIG | UCC_CONFIG_PRINT_HEADER | UCC_CONFIG_PRINT_DOC);
    EXPECT_NE(full.find("My Title"), std::string::npos) << full;
    EXPECT_TRUE(has_line(full, "UCC_LOG_LEVEL=TRACE")) << full;
    EXPECT_NE(full.find("# default: WARN"), std::string::npos) << full;
    std::string header_only = print_lib_config(cfg, "Only Header", UCC_CONFIG_PRINT_HEADER);
    EXPECT_NE(header_only.find("Only Header"), std::string::npos);
    EXPECT_EQ(header_only.find("UCC_LOG_LEVEL="), std::string::npos) << header_only;
    EXPECT_EQ(print_lib_config(cfg, "x", 0), "");
    ucc_lib_config_release(cfg);
}

TEST(LifecycleLibConfig, EnvironmentAndPrefix) {
    {
        ScopedEnv env("X_UCC_LOG_LEVEL", "DEBUG");
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("X", nullptr, &cfg), UCC_OK);
        std::string text = print_lib_config(cfg);
        EXPECT_TRUE(has_line(text, "X_UCC_LOG_LEVEL=DEBUG")) << text;
        // The context configuration inherits the library's prefix.
        ucc_lib_h lib = nullptr;
        ASSERT_EQ(init_lib(&lib, cfg), UCC_OK);
        ucc_lib_config_release(cfg);  // may be released right after ucc_init
        ucc_context_config_h cc = nullptr;
        {
            ScopedEnv radix("X_UCC_KNOMIAL_RADIX", "7");
            ASSERT_EQ(ucc_context_config_read(lib, nullptr, &cc), UCC_OK);
        }
        std::string ctext = print_ctx_config(cc);
        EXPECT_TRUE(has_line(ctext, "X_UCC_KNOMIAL_RADIX=7")) << ctext;
        ucc_context_config_release(cc);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    }
    {
        // The plain prefix is not read when a prefix is given, and vice versa.
        ScopedEnv plain("UCC_LOG_LEVEL", "INFO");
        ScopedEnv prefixed("X_UCC_LOG_LEVEL", nullptr);
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("X", nullptr, &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "X_UCC_LOG_LEVEL=WARN"));
        ucc_lib_config_release(cfg);
        ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "UCC_LOG_LEVEL=INFO"));
        ucc_lib_config_release(cfg);
        // An empty prefix means the default one.
        ASSERT_EQ(ucc_lib_config_read("", nullptr, &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "UCC_LOG_LEVEL=INFO"));
        ucc_lib_config_release(cfg);
    }
    {
        // A value in the environment that does not parse fails the read.
        ScopedEnv bad("X_UCC_LOG_LEVEL", "VERBOSE");
        ucc_lib_config_h cfg = nullptr;
        EXPECT_EQ(ucc_lib_config_read("X", nullptr, &cfg), UCC_ERR_INVALID_PARAM);
    }
}

// A context created without a configuration reads the environment itself,
// with the library's prefix.
TEST(LifecycleLibConfig, ContextCreateWithoutConfigReadsEnvironment) {
    ucc_lib_config_h cfg = nullptr;
    ASSERT_EQ(ucc_lib_config_read("XCTX", nullptr, &cfg), UCC_OK);
    ucc_lib_h lib = nullptr;
    ASSERT_EQ(init_lib(&lib, cfg), UCC_OK);
    ucc_lib_config_release(cfg);
    ucc_context_h ctx = nullptr;
    {
        ScopedEnv bad("XCTX_UCC_KNOMIAL_RADIX", "1");
        EXPECT_EQ(create_local_context(lib, &ctx), UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(ctx, nullptr);
    }
    {
        ScopedEnv alg("XCTX_UCC_BARRIER_ALG", "no_such_barrier");
        ScopedEnv plain("UCC_BARRIER_ALG", "knomial");  // another prefix: ignored
        ASSERT_EQ(create_local_context(lib, &ctx), UCC_OK);
    }
    ucc_team_h team = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &team), UCC_OK);
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    ucc_coll_req_h req = nullptr;
    EXPECT_EQ(ucc_collective_init(&a, &req, team), UCC_ERR_NOT_SUPPORTED);
    EXPECT_EQ(destroy_team(team), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

TEST(LifecycleLibConfig, ConfigFile) {
    ScopedEnv env("LCF_UCC_LOG_LEVEL", nullptr);
    {
        TempFile f("# a comment\n\n  LOG_LEVEL = ERROR  \nSOMETHING_ELSE=whatever\n");
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("LCF", f.path(), &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "LCF_UCC_LOG_LEVEL=ERROR"));
        ucc_lib_config_release(cfg);
    }
    {
        // The prefixed spelling is accepted in the file too.
        TempFile f("LCF_UCC_LOG_LEVEL=INFO\n");
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("LCF", f.path(), &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "LCF_UCC_LOG_LEVEL=INFO"));
        ucc_lib_config_release(cfg);
    }
    {
        // The environment wins over the file.
        TempFile f("LOG_LEVEL=ERROR\n");
        ScopedEnv over("LCF_UCC_LOG_LEVEL", "TRACE");
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("LCF", f.path(), &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "LCF_UCC_LOG_LEVEL=TRACE"));
        ucc_lib_config_release(cfg);
    }
    {
        // A missing file is ignored: defaults.
        std::string missing = ::testing::TempDir() + "ucc_lifecycle_no_such_file.conf";
        std::remove(missing.c_str());
        ucc_lib_config_h cfg = nullptr;
        ASSERT_EQ(ucc_lib_config_read("LCF", missing.c_str(), &cfg), UCC_OK);
        EXPECT_TRUE(has_line(print_lib_config(cfg), "LCF_UCC_LOG_LEVEL=WARN"));
        ucc_lib_config_release(cfg);
    }
    {
        // Malformed lines and bad values are errors.
        TempFile noeq("LOG_LEVEL ERROR\n");
        TempFile badval("LOG_LEVEL=NOISY\n");
        ucc_lib_config_h cfg = nullptr;
        EXPECT_EQ(ucc_lib_config_read("LCF", noeq.path(), &cfg), UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(ucc_lib_config_read("LCF", badval.path(), &cfg), UCC_ERR_INVALID_PARAM);
    }
    {
        // The context configuration reads its own file.
        ScopedEnv radix("UCC_KNOMIAL_RADIX", nullptr);
        ScopedEnv alg("UCC_ALLREDUCE_ALG", nullptr);
        ucc_lib_h lib = nullptr;
        ASSERT_EQ(init_lib(&lib), UCC_OK);
        TempFile f("KNOMIAL_RADIX=8\nALLREDUCE_ALG=ring\n");
        ucc_context_config_h cc = nullptr;
        ASSERT_EQ(ucc_context_config_read(lib, f.path(), &cc), UCC_OK);
        std::string text = print_ctx_config(cc);
        EXPECT_TRUE(has_line(text, "UCC_KNOMIAL_RADIX=8")) << text;
        EXPECT_TRUE(has_line(text, "UCC_ALLREDUCE_ALG=ring")) << text;
        ucc_context_config_release(cc);
        TempFile bad("KNOMIAL_RADIX=1\n");
        EXPECT_EQ(ucc_context_config_read(lib, bad.path(), &cc), UCC_ERR_INVALID_PARAM);
        std::string missing = ::testing::TempDir() + "ucc_lifecycle_no_such_ctx_file.conf";
        std::remove(missing.c_str());
        ASSERT_EQ(ucc_context_config_read(lib, missing.c_str(), &cc), UCC_OK);
        EXPECT_TRUE(has_line(print_ctx_config(cc), "UCC_KNOMIAL_RADIX=auto"));
        ucc_context_config_release(cc);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    }
}

// ---------------------------------------------------------------------------
// Init, finalize, attributes, versions, status strings
// ---------------------------------------------------------------------------

TEST(LifecycleLib, InitArguments) {
    ucc_lib_h lib = nullptr;
    ucc_lib_params_t p{};
    EXPECT_EQ(ucc_init(nullptr, nullptr, &lib), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_init(&p, nullptr, nullptr), UCC_ERR_INVALID_PARAM);
    p.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    p.thread_mode = static_cast<ucc_thread_mode_t>(3);  // in the enum's range 0..3
    EXPECT_EQ(ucc_init(&p, nullptr, &lib), UCC_ERR_INVALID_PARAM);
    if (!kSanitized) {
        p.thread_mode = static_cast<ucc_thread_mode_t>(-1);
        EXPECT_EQ(ucc_init(&p, nullptr, &lib), UCC_ERR_INVALID_PARAM);
        p.mask = UCC_LIB_PARAM_FIELD_SYNC_TYPE;
        p.sync_type = static_cast<ucc_coll_sync_type_t>(7);
        EXPECT_EQ(ucc_init(&p, nullptr, &lib), UCC_ERR_INVALID_PARAM);
    }
    EXPECT_EQ(lib, nullptr) << "a failed ucc_init must not hand out a library";

    // Mask 0 and a NULL config: defaults.
    p = ucc_lib_params_t{};
    ASSERT_EQ(ucc_init(&p, nullptr, &lib), UCC_OK);
    ASSERT_NE(lib, nullptr);
    ucc_lib_attr_t a{};
    a.mask = UCC_LIB_ATTR_FIELD_THREAD_MODE | UCC_LIB_ATTR_FIELD_SYNC_TYPE;
    a.thread_mode = UCC_THREAD_MULTIPLE;
    ASSERT_EQ(ucc_lib_get_attr(lib, &a), UCC_OK);
    EXPECT_EQ(a.thread_mode, UCC_THREAD_SINGLE);
    EXPECT_EQ(a.sync_type, UCC_NO_SYNC_COLLECTIVES);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);

    // A caller built for another API version only gets a warning.
    lib = nullptr;
    EXPECT_EQ(ucc_init_version(UCC_API_MAJOR + 1, 0, &p, nullptr, &lib), UCC_OK);
    ASSERT_NE(lib, nullptr);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    lib = nullptr;
    EXPECT_EQ(ucc_init_version(UCC_API_MAJOR, UCC_API_MINOR + 5, &p, nullptr, &lib), UCC_OK);
    ASSERT_NE(lib, nullptr);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

TEST(LifecycleLib, GetAttrAllFields) {
    for (ucc_thread_mode_t tm : {UCC_THREAD_SINGLE, UCC_THREAD_FUNNELED, UCC_THREAD_MULTIPLE}) {
        ucc_lib_params_t p{};
        p.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE | UCC_LIB_PARAM_FIELD_COLL_TYPES;
        p.thread_mode = tm;
        p.coll_types = UCC_COLL_TYPE_ALLREDUCE | UCC_COLL_TYPE_BCAST;
        ucc_lib_h lib = nullptr;
        ASSERT_EQ(ucc_init(&p, nullptr, &lib), UCC_OK);
        ucc_lib_attr_t a;
        std::memset(&a, 0xff, sizeof(a));
        a.mask = UCC_LIB_ATTR_FIELD_THREAD_MODE | UCC_LIB_ATTR_FIELD_COLL_TYPES |
                 UCC_LIB_ATTR_FIELD_REDUCTION_TYPES | UCC_LIB_ATTR_FIELD_SYNC_TYPE;
        ASSERT_EQ(ucc_lib_get_attr(lib, &a), UCC_OK);
        EXPECT_EQ(a.thread_mode, tm);
        // Every one of the 16 collective types is implemented and reported,
        // whatever was asked for.
        EXPECT_EQ(a.coll_types, UCC_BIT(16) - 1);
        // Reduction types: UCC_BIT(op) for each supported op; never MAXLOC/MINLOC.
        for (int op = UCC_OP_SUM; op < UCC_OP_LAST; ++op) {
            bool want = op != UCC_OP_MAXLOC && op != UCC_OP_MINLOC;
            EXPECT_EQ((a.reduction_types & UCC_BIT(op)) != 0, want) << "op " << op;
        }
        EXPECT_EQ(a.reduction_types >> UCC_OP_LAST, 0u);
        EXPECT_EQ(a.sync_type, UCC_NO_SYNC_COLLECTIVES);
        // Fields outside the mask are not written.
        ucc_lib_attr_t b;
        std::memset(&b, 0xab, sizeof(b));
        b.mask = 0;
        ASSERT_EQ(ucc_lib_get_attr(lib, &b), UCC_OK);
        EXPECT_EQ(b.coll_types, 0xababababababababull);
        EXPECT_EQ(b.reduction_types, 0xababababababababull);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    }
}

TEST(LifecycleLib, FinalizeNeedsContextsDestroyed) {
    EXPECT_EQ(ucc_finalize(nullptr), UCC_ERR_INVALID_PARAM);
    ucc_lib_h lib = nullptr;
    ASSERT_EQ(init_lib(&lib), UCC_OK);
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib, &ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_ERR_INVALID_PARAM);
    // The library is still usable after the refused finalize.
    ucc_context_h ctx2 = nullptr;
    ASSERT_EQ(create_local_context(lib, &ctx2), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_destroy(ctx2), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

TEST(LifecycleLib, Versions) {
    unsigned major = 99;
    unsigned minor = 99;
    unsigned release = 99;
    ucc_get_version(&major, &minor, &release);
    EXPECT_EQ(major, 1u);
    EXPECT_EQ(minor, 3u);
    EXPECT_EQ(release, 0u);
    EXPECT_EQ(major, static_cast<unsigned>(UCC_API_MAJOR));
    EXPECT_EQ(minor, static_cast<unsigned>(UCC_API_MINOR));
    const char *s = ucc_get_version_string();
    ASSERT_NE(s, nullptr);
    EXPECT_STREQ(s, UCC_VERSION_STRING);
    char want[64];
    std::snprintf(want, sizeof(want), "%u.%u.%u", major, minor, release);
    EXPECT_STREQ(s, want);
    EXPECT_EQ(ucc_get_version_string(), s) << "a static string";
    ucc_get_version(nullptr, nullptr, nullptr);  // no crash
    unsigned only_minor = 0;
    ucc_get_version(nullptr, &only_minor, nullptr);
    EXPECT_EQ(only_minor, 3u);
}

TEST(LifecycleLib, StatusStrings) {
    const struct {
        ucc_status_t st;
        const char *text;
    } known[] = {
        {UCC_OK, "Success"},
        {UCC_INPROGRESS, "Operation in progress"},
        {UCC_OPERATION_INITIALIZED, "Operation initialized"},
        {UCC_ERR_NOT_SUPPORTED, "Operation is not supported"},
        {UCC_ERR_NOT_IMPLEMENTED, "Not implemented"},
        {UCC_ERR_INVALID_PARAM, "Invalid parameter"},
        {UCC_ERR_NO_MEMORY, "Out of memory"},
        {UCC_ERR_NO_RESOURCE, "Resources are not available for the operation"},
        {UCC_ERR_NO_MESSAGE, "Unhandled error"},
        {UCC_ERR_NOT_FOUND, "Not found"},
        {UCC_ERR_TIMED_OUT, "Timeout expired"},
    };
    std::vector<std::string> seen;
    for (const auto &k : known) {
        const char *s = ucc_status_string(k.st);
        ASSERT_NE(s, nullptr) << k.st;
        EXPECT_STREQ(s, k.text) << k.st;
        seen.emplace_back(s);
    }
    const char *io = ucc_status_string(UCC_ERR_IO_ERROR);
    ASSERT_NE(io, nullptr);
    EXPECT_GT(std::strlen(io), 0u);
    for (const std::string &s : seen) {
        EXPECT_NE(s, io) << "IO_ERROR has its own text";
    }
    for (int v : {3, 100, -10, -99, static_cast<int>(UCC_ERR_LAST)}) {
        const char *s = ucc_status_string(static_cast<ucc_status_t>(v));
        ASSERT_NE(s, nullptr) << v;
        EXPECT_EQ(std::string(s).rfind("Unknown error", 0), 0u) << v << ": " << s;
    }
}

// ---------------------------------------------------------------------------
// Context configuration
// ---------------------------------------------------------------------------

class LifecycleWithLib : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_EQ(init_lib(&lib_), UCC_OK); }
    void TearDown() override {
        if (lib_ != nullptr) {
            EXPECT_EQ(ucc_finalize(lib_), UCC_OK);
        }
    }
    ucc_lib_h lib_ = nullptr;
};

TEST_F(LifecycleWithLib, ContextConfigModifyAndPrint) {
    ScopedEnv radix("UCC_KNOMIAL_RADIX", nullptr);
    ucc_context_config_h cc = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    ASSERT_NE(cc, nullptr);
    EXPECT_TRUE(has_line(print_ctx_config(cc), "UCC_KNOMIAL_RADIX=auto"));

    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "KNOMIAL_RADIX", "8"), UCC_OK);
    EXPECT_TRUE(has_line(print_ctx_config(cc), "UCC_KNOMIAL_RADIX=8"));
    EXPECT_EQ(ucc_context_config_modify(cc, "cl/basic", "KNOMIAL_RADIX", "3"), UCC_OK);
    EXPECT_TRUE(has_line(print_ctx_config(cc), "UCC_KNOMIAL_RADIX=3"));
    EXPECT_EQ(ucc_context_config_modify(cc, "all", "ALLREDUCE_LARGE_MSG", "1M"), UCC_OK);
    EXPECT_TRUE(has_line(print_ctx_config(cc), "UCC_ALLREDUCE_LARGE_MSG=1M"));

    // Component names: bad form, unknown component.
    EXPECT_EQ(ucc_context_config_modify(cc, "xyz", "KNOMIAL_RADIX", "5"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, "cl/", "KNOMIAL_RADIX", "5"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, "", "KNOMIAL_RADIX", "5"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, "tl/foo", "KNOMIAL_RADIX", "5"), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(ucc_context_config_modify(cc, "cl/hier", "KNOMIAL_RADIX", "5"), UCC_ERR_NOT_FOUND);
    // Unknown name, values out of range or unparsable.
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "NO_SUCH_VAR", "1"), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "KNOMIAL_RADIX", "1"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "KNOMIAL_RADIX", "65"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "KNOMIAL_RADIX", "four"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ALLGATHER_LARGE_MSG", "-5"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ALLGATHER_LARGE_MSG", "12Q"),
              UCC_ERR_INVALID_PARAM);
    // None of the refused modifications changed anything.
    std::string text =
        print_ctx_config(cc, "Context Title",
                         UCC_CONFIG_PRINT_CONFIG | UCC_CONFIG_PRINT_HEADER | UCC_CONFIG_PRINT_DOC);
    EXPECT_TRUE(has_line(text, "UCC_KNOMIAL_RADIX=3")) << text;
    EXPECT_TRUE(has_line(text, "UCC_ALLGATHER_LARGE_MSG=64K")) << text;
    EXPECT_NE(text.find("Context Title"), std::string::npos);
    EXPECT_NE(text.find("# default: 4"), std::string::npos);
    for (const char *var : {"ALLREDUCE_ALG", "BCAST_ALG", "REDUCE_ALG", "BARRIER_ALG",
                            "ALLGATHER_ALG", "ALLTOALL_ALG"}) {
        EXPECT_TRUE(has_line(text, std::string("UCC_") + var + "=auto")) << var;
    }
    EXPECT_EQ(print_ctx_config(cc, "t", UCC_CONFIG_PRINT_HEADER).find("KNOMIAL_RADIX"),
              std::string::npos);

    // One configuration serves several contexts, and can be released right
    // after they are created.
    ucc_context_h ctx = nullptr;
    ucc_context_h ctx2 = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx, cc), UCC_OK);
    ASSERT_EQ(create_local_context(lib_, &ctx2, cc), UCC_OK);
    ucc_context_config_release(cc);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx2), UCC_OK);
}

// Was a bug (lib/core/config.cc, kContextVars: "LOG_LEVEL" has no validator):
// ucc_context_config_modify(cfg, NULL, "LOG_LEVEL", "LOUD") returns UCC_OK and
// the bad value only fails later, in ucc_context_create (UCC_ERR_INVALID_PARAM).
// API.md §2.1 REC: "a value that cannot be parsed → UCC_ERR_INVALID_PARAM" at
// modify, as ucc_lib_config_modify does for the same variable.
TEST_F(LifecycleWithLib, ContextConfigRejectsBadLogLevel) {
    ucc_context_config_h cc = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "LOG_LEVEL", "LOUD"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "LOG_LEVEL", "DEBUG"), UCC_OK);
    ucc_context_config_release(cc);
}

// What happens today with an unparsable context LOG_LEVEL: it is caught at
// ucc_context_create, which creates nothing.
TEST_F(LifecycleWithLib, ContextConfigRefusesBadLogLevel) {
    ucc_context_config_h cc = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "LOG_LEVEL", "LOUD"), UCC_ERR_INVALID_PARAM);
    // The refused value left the config as it was: the context is created.
    ucc_context_h ctx = nullptr;
    EXPECT_EQ(create_local_context(lib_, &ctx, cc), UCC_OK);
    ucc_context_config_release(cc);
    if (ctx != nullptr) {
        EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    }
}

// ---------------------------------------------------------------------------
// Context without OOB, teams of one
// ---------------------------------------------------------------------------

TEST_F(LifecycleWithLib, ContextAttributes) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ucc_context_attr_t a;
    std::memset(&a, 0, sizeof(a));
    a.mask = UCC_CONTEXT_ATTR_FIELD_TYPE | UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE |
             UCC_CONTEXT_ATTR_FIELD_CTX_ADDR | UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN |
             UCC_CONTEXT_ATTR_FIELD_WORK_BUFFER_SIZE;
    a.type = UCC_CONTEXT_EXCLUSIVE;
    a.sync_type = UCC_SYNC_COLLECTIVES;
    ASSERT_EQ(ucc_context_get_attr(ctx, &a), UCC_OK);
    EXPECT_EQ(a.type, UCC_CONTEXT_SHARED);
    EXPECT_EQ(a.sync_type, UCC_NO_SYNC_COLLECTIVES);
    EXPECT_NE(a.ctx_addr, nullptr);
    EXPECT_GT(a.ctx_addr_len, 0u);
    EXPECT_GT(a.global_work_buffer_size, 0u);
    // The address is library-owned and stable; copying it out works.
    std::vector<uint8_t> copy(static_cast<const uint8_t *>(a.ctx_addr),
                              static_cast<const uint8_t *>(a.ctx_addr) + a.ctx_addr_len);
    ucc_context_attr_t b{};
    b.mask = UCC_CONTEXT_ATTR_FIELD_CTX_ADDR | UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN;
    ASSERT_EQ(ucc_context_get_attr(ctx, &b), UCC_OK);
    EXPECT_EQ(b.ctx_addr, a.ctx_addr);
    EXPECT_EQ(b.ctx_addr_len, a.ctx_addr_len);
    EXPECT_EQ(std::memcmp(b.ctx_addr, copy.data(), copy.size()), 0);
    // Fields outside the mask are untouched.
    ucc_context_attr_t c;
    std::memset(&c, 0x5a, sizeof(c));
    c.mask = UCC_CONTEXT_ATTR_FIELD_TYPE;
    ASSERT_EQ(ucc_context_get_attr(ctx, &c), UCC_OK);
    EXPECT_EQ(c.type, UCC_CONTEXT_SHARED);
    EXPECT_EQ(c.global_work_buffer_size, 0x5a5a5a5a5a5a5a5aull);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);

    // Type and sync type given at creation are reported back.
    ucc_context_params_t p{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_TYPE | UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE |
             UCC_CONTEXT_PARAM_FIELD_ID;
    p.type = UCC_CONTEXT_EXCLUSIVE;
    p.sync_type = UCC_NO_SYNC_COLLECTIVES;
    p.ctx_id = 1234;
    ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
    ucc_context_attr_t d{};
    d.mask = UCC_CONTEXT_ATTR_FIELD_TYPE | UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE;
    ASSERT_EQ(ucc_context_get_attr(ctx, &d), UCC_OK);
    EXPECT_EQ(d.type, UCC_CONTEXT_EXCLUSIVE);
    EXPECT_EQ(d.sync_type, UCC_NO_SYNC_COLLECTIVES);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, ContextCreateInvalidParams) {
    ucc_context_h ctx = nullptr;
    ucc_context_params_t p{};
    if (!kSanitized) {
        p.mask = UCC_CONTEXT_PARAM_FIELD_TYPE;
        p.type = static_cast<ucc_context_type_t>(5);
        EXPECT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_ERR_INVALID_PARAM);
        p.mask = UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE;
        p.sync_type = static_cast<ucc_coll_sync_type_t>(9);
        EXPECT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_ERR_INVALID_PARAM);
    }
    p = ucc_context_params_t{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS;
    p.mem_params.n_segments = 2;
    p.mem_params.segments = nullptr;
    EXPECT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_ERR_INVALID_PARAM);
    // An OOB with missing callbacks, or an ep outside [0, n_oob_eps).
    p = ucc_context_params_t{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    p.oob.n_oob_eps = 1;
    p.oob.oob_ep = 0;
    EXPECT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ctx, nullptr);
    // Nothing was created, so finalize succeeds in TearDown.
}

namespace {

// A one-process OOB: the allgather copies the caller's bytes, or fails on
// demand at start or at test.
struct SoloOob {
    ucc_status_t start_status = UCC_OK;
    ucc_status_t test_status = UCC_OK;
    int started = 0;
    int freed = 0;
};

ucc_status_t solo_allgather(void *src, void *dst, size_t size, void *info, void **req) {
    auto *o = static_cast<SoloOob *>(info);
    ++o->started;
    if (o->start_status != UCC_OK) {
        return o->start_status;
    }
    std::memcpy(dst, src, size);
    *req = o;
    return UCC_OK;
}

ucc_status_t solo_test(void *req) {
    return static_cast<SoloOob *>(req)->test_status;
}

ucc_status_t solo_free(void *req) {
    ++static_cast<SoloOob *>(req)->freed;
    return UCC_OK;
}

ucc_oob_coll_t solo_oob(SoloOob *o) {
    ucc_oob_coll_t oob{};
    oob.allgather = solo_allgather;
    oob.req_test = solo_test;
    oob.req_free = solo_free;
    oob.coll_info = o;
    oob.n_oob_eps = 1;
    oob.oob_ep = 0;
    return oob;
}

}  // namespace

// A context created with an OOB of one endpoint outside the simulator (one
// process): as in the reference, nothing is exchanged and the OOB is never
// called (not even one that would fail), and ep-map teams work on the result.
TEST_F(LifecycleWithLib, ContextWithOobOfOneProcess) {
    SoloOob fail_start;
    fail_start.start_status = UCC_ERR_NO_RESOURCE;
    ucc_context_params_t p{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    p.oob = solo_oob(&fail_start);
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
    EXPECT_EQ(fail_start.started, 0);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);

    SoloOob good;
    p.oob = solo_oob(&good);
    ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
    EXPECT_EQ(good.started, 0);
    // A team from the context's eps (FULL map), and one from the whole context.
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = 1;
    ucc_team_h t1 = nullptr;
    ASSERT_EQ(create_team(ctx, tp, &t1), UCC_OK);
    ucc_team_params_t whole{};
    whole.mask = UCC_TEAM_PARAM_FIELD_EP;
    whole.ep = 0;
    ucc_team_h t2 = nullptr;
    ASSERT_EQ(create_team(ctx, whole, &t2), UCC_OK);
    // A FULL map must cover the context: ep_num 2 of a 1-ep context is refused.
    tp.ep_map.ep_num = 2;
    ucc_team_h t3 = nullptr;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &t3), UCC_ERR_INVALID_PARAM);
    tp.ep_map.ep_num = 0;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &t3), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(t3, nullptr);
    for (ucc_team_h t : {t1, t2}) {
        ucc_team_attr_t a{};
        a.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP;
        ASSERT_EQ(ucc_team_get_attr(t, &a), UCC_OK);
        EXPECT_EQ(a.size, 1u);
        EXPECT_EQ(a.ep, 0u);
        int64_t v = 41;
        int64_t r = 0;
        ucc_coll_args_t ar{};
        ar.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        ar.op = UCC_OP_MAX;
        ar.src.info = info(&v, 1, UCC_DT_INT64);
        ar.dst.info = info(&r, 1, UCC_DT_INT64);
        EXPECT_EQ(run_collective(ctx, t, ar), UCC_OK);
        EXPECT_EQ(r, 41);
    }
    EXPECT_EQ(destroy_team(t1), UCC_OK);
    EXPECT_EQ(destroy_team(t2), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

// Was a bug (lib/core/api_team.cc, ucc_team_create_post: the `size == 1` branch):
// a team of one is made of the caller without looking at the ep map, so a map
// whose only entry is not this context (here context ep 1 of a 1-ep context;
// on the simulator, another rank's ep) is accepted and the caller gets a team
// of itself. With more members the same map is refused by create_via_ep_map
// ("ep_map entry ... is not a context ep" / "this context is not in the
// team's ep map", UCC_ERR_INVALID_PARAM); a team of one should be too.
TEST_F(LifecycleWithLib, TeamOfOneEpMapIsChecked) {
    SoloOob good;
    ucc_context_params_t p{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    p.oob = solo_oob(&good);
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
    static const uint64_t elsewhere[1] = {5};
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_ID;
    tp.id = 4;
    tp.ep_map.ep_num = 1;
    tp.ep_map.type = UCC_EP_MAP_STRIDED;
    tp.ep_map.strided.start = 1;  // context ep 1 does not exist
    tp.ep_map.strided.stride = 1;
    ucc_team_h t = nullptr;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &t), UCC_ERR_INVALID_PARAM);
    if (t != nullptr) {
        EXPECT_EQ(destroy_team(t), UCC_OK);
        t = nullptr;
    }
    tp.ep_map.type = UCC_EP_MAP_ARRAY;
    tp.ep_map.array.map = const_cast<uint64_t *>(elsewhere);
    tp.ep_map.array.elem_size = 8;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &t), UCC_ERR_INVALID_PARAM);
    if (t != nullptr) {
        EXPECT_EQ(destroy_team(t), UCC_OK);
    }
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, ContextWithMemParamsCopiesSegments) {
    std::vector<uint8_t> heap(256);
    ucc_context_h ctx = nullptr;
    {
        ucc_mem_map_t segs[2] = {{heap.data(), 128}, {heap.data() + 128, 128}};
        ucc_context_params_t p{};
        p.mask = UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS;
        p.mem_params.segments = segs;
        p.mem_params.n_segments = 2;
        ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
        std::memset(segs, 0, sizeof(segs));  // the library kept its own copy
    }
    ucc_team_h team = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &team), UCC_OK);
    int32_t v = 5;
    int32_t r = 0;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(&v, 1, UCC_DT_INT32);
    a.dst.info = info(&r, 1, UCC_DT_INT32);
    EXPECT_EQ(run_collective(ctx, team, a), UCC_OK);
    EXPECT_EQ(r, 5);
    EXPECT_EQ(destroy_team(team), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, TeamOfOneCreationForms) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ucc_team_params_t forms[3] = {};
    forms[0].mask = UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    forms[0].team_size = 1;
    forms[1].mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    forms[1].ep = 0;
    forms[1].ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    forms[2].mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_TEAM_SIZE |
                    UCC_TEAM_PARAM_FIELD_ID | UCC_TEAM_PARAM_FIELD_ORDERING |
                    UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    forms[2].ep = 0;
    forms[2].team_size = 1;
    forms[2].id = 77;
    forms[2].ordering = UCC_COLLECTIVE_INIT_ORDERED;
    forms[2].outstanding_colls = 9;
    forms[2].ep_range = UCC_COLLECTIVE_EP_RANGE_NONCONTIG;
    for (int i = 0; i < 3; ++i) {
        ucc_team_h team = nullptr;
        ASSERT_EQ(create_team(ctx, forms[i], &team), UCC_OK) << "form " << i;
        EXPECT_EQ(ucc_team_create_test(team), UCC_OK) << "stays OK";
        ucc_team_attr_t a{};
        a.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP | UCC_TEAM_ATTR_FIELD_EPS |
                 UCC_TEAM_ATTR_FIELD_POST_ORDERING | UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS |
                 UCC_TEAM_ATTR_FIELD_EP_RANGE | UCC_TEAM_ATTR_FIELD_SYNC_TYPE;
        a.ep = 55;
        ASSERT_EQ(ucc_team_get_attr(team, &a), UCC_OK);
        EXPECT_EQ(a.size, 1u);
        EXPECT_EQ(a.ep, 0u);
        ASSERT_NE(a.eps, nullptr);
        EXPECT_EQ(a.eps[0], 0u);
        EXPECT_EQ(a.sync_type, UCC_NO_SYNC_COLLECTIVES);
        if (i == 2) {
            EXPECT_EQ(a.ordering, UCC_COLLECTIVE_INIT_ORDERED);
            EXPECT_EQ(a.outstanding_colls, 9u);
            EXPECT_EQ(a.ep_range, UCC_COLLECTIVE_EP_RANGE_NONCONTIG);
        } else {
            EXPECT_EQ(a.ordering, UCC_COLLECTIVE_POST_ORDERED);
            EXPECT_EQ(a.ep_range, UCC_COLLECTIVE_EP_RANGE_CONTIG);
        }
        EXPECT_EQ(destroy_team(team), UCC_OK);
    }
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, TeamCreateRefusals) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ucc_team_h team = nullptr;
    ucc_team_params_t tp{};
    // No size anywhere.
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    // A size of 0.
    tp.mask = UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    tp.team_size = 0;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    // More than one member needs an OOB (team or context).
    tp.mask = UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    tp.team_size = 2;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_NO_RESOURCE);
    // ep outside the team.
    tp.mask = UCC_TEAM_PARAM_FIELD_TEAM_SIZE | UCC_TEAM_PARAM_FIELD_EP;
    tp.team_size = 1;
    tp.ep = 1;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    // An ep map needs a context created with an OOB.
    tp = ucc_team_params_t{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = 1;
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    // ... or a team OOB, through which the members are found (as the reference).
    SoloOob team_oob;
    tp.mask |= UCC_TEAM_PARAM_FIELD_OOB;
    tp.oob = solo_oob(&team_oob);
    ASSERT_EQ(create_team(ctx, tp, &team), UCC_OK);
    EXPECT_GE(team_oob.started, 1);
    EXPECT_EQ(destroy_team(team), UCC_OK);
    team = nullptr;
    // Invalid ordering / sync type.
    tp = solo_params();
    tp.mask |= UCC_TEAM_PARAM_FIELD_ORDERING;
    tp.ordering = static_cast<ucc_post_ordering_t>(6);
    EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    if (!kSanitized) {
        tp = solo_params();
        tp.mask |= UCC_TEAM_PARAM_FIELD_SYNC_TYPE;
        tp.sync_type = static_cast<ucc_coll_sync_type_t>(4);
        EXPECT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_ERR_INVALID_PARAM);
    }
    // Context counts: num_contexts 0 and 2.
    tp = solo_params();
    ucc_context_h two[2] = {ctx, ctx};
    EXPECT_EQ(ucc_team_create_post(two, 0, &tp, &team), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_team_create_post(two, 2, &tp, &team), UCC_ERR_NOT_SUPPORTED);
    EXPECT_EQ(team, nullptr);
    // None of these left a team behind: the context can be destroyed.
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

// An exclusive context holds several teams at once, as the reference's does
// (its own tests create them so); the spec's "one valid team" is a promise
// the program may make, not one the library checks.
TEST_F(LifecycleWithLib, ExclusiveContextHoldsSeveralTeams) {
    ucc_context_params_t p{};
    p.mask = UCC_CONTEXT_PARAM_FIELD_TYPE;
    p.type = UCC_CONTEXT_EXCLUSIVE;
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(ucc_context_create(lib_, &p, nullptr, &ctx), UCC_OK);
    ucc_team_h t1 = nullptr;
    ucc_team_h t2 = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &t1), UCC_OK);
    ASSERT_EQ(create_team(ctx, solo_params(), &t2), UCC_OK);
    EXPECT_EQ(destroy_team(t1), UCC_OK);
    EXPECT_EQ(destroy_team(t2), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);

    // A shared context holds several.
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ASSERT_EQ(create_team(ctx, solo_params(), &t1), UCC_OK);
    ASSERT_EQ(create_team(ctx, solo_params(), &t2), UCC_OK);
    EXPECT_EQ(destroy_team(t1), UCC_OK);
    EXPECT_EQ(destroy_team(t2), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, DestroyOrder) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ucc_team_h team = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &team), UCC_OK);
    // A live context keeps the library.
    EXPECT_EQ(ucc_finalize(lib_), UCC_ERR_INVALID_PARAM);
    // A program can always tear down: an unfinalized request does not keep
    // its team, nor the team its context; the request stays valid until
    // finalized, and cannot be posted on the destroyed team.
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, team), UCC_OK);
    EXPECT_EQ(destroy_team(team), UCC_OK);
    EXPECT_EQ(ucc_collective_post(req), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
}

// An idle team does not keep its context: ucc_context_destroy takes it down
// (Open MPI's coll/ucc destroys the context at MPI_Finalize while the
// communicators the program never freed still hold their teams).
TEST_F(LifecycleWithLib, ContextDestroyTakesIdleTeamsDown) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    ucc_team_h t1 = nullptr;
    ucc_team_h t2 = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &t1), UCC_OK);
    ASSERT_EQ(create_team(ctx, solo_params(), &t2), UCC_OK);
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, t2), UCC_OK);
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    EXPECT_EQ(wait_request(ctx, req), UCC_OK);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    EXPECT_EQ(destroy_team(t1), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    // The team's handle is a tombstone until ucc_finalize.
    EXPECT_EQ(ucc_team_destroy(t2), UCC_ERR_INVALID_PARAM);
    req = nullptr;
    EXPECT_EQ(ucc_collective_init(&a, &req, t2), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(req, nullptr);
}

// Every implemented collective on a team of one, with the values checked.
class LifecycleSolo : public ::testing::Test {
  protected:
    void SetUp() override { open(nullptr); }
    void open(ucc_context_config_h cfg) {
        ASSERT_EQ(init_lib(&lib_), UCC_OK);
        ASSERT_EQ(create_local_context(lib_, &ctx_, cfg), UCC_OK);
        ASSERT_EQ(create_team(ctx_, solo_params(), &team_), UCC_OK);
    }
    void close() {
        if (team_ != nullptr) {
            EXPECT_EQ(destroy_team(team_), UCC_OK);
            team_ = nullptr;
        }
        if (ctx_ != nullptr) {
            EXPECT_EQ(ucc_context_destroy(ctx_), UCC_OK);
            ctx_ = nullptr;
        }
        if (lib_ != nullptr) {
            EXPECT_EQ(ucc_finalize(lib_), UCC_OK);
            lib_ = nullptr;
        }
    }
    void TearDown() override { close(); }
    ucc_status_t run(const ucc_coll_args_t &a) { return run_collective(ctx_, team_, a); }

    // Runs all six collectives; `tag` names the configuration in failures.
    void run_all_six(const std::string &tag) {
        {
            int32_t src[5] = {1, -2, 3, 40, 5};
            int32_t dst[5] = {0, 0, 0, 0, 0};
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
            a.op = UCC_OP_SUM;
            a.src.info = info(src, 5, UCC_DT_INT32);
            a.dst.info = info(dst, 5, UCC_DT_INT32);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            for (int i = 0; i < 5; ++i) {
                EXPECT_EQ(dst[i], src[i]) << tag << " allreduce " << i;
            }
            // In place, MAX on doubles, AVG over one member.
            double d[3] = {1.5, -2.25, 8};
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
            a.op = UCC_OP_AVG;
            a.src.info = info(nullptr, 0, UCC_DT_FLOAT64);
            a.dst.info = info(d, 3, UCC_DT_FLOAT64);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            EXPECT_EQ(d[0], 1.5);
            EXPECT_EQ(d[1], -2.25);
            EXPECT_EQ(d[2], 8.0);
        }
        {
            uint8_t buf[7] = {9, 8, 7, 6, 5, 4, 3};
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_BCAST;
            a.root = 0;
            a.src.info = info(buf, 7, UCC_DT_UINT8);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            const uint8_t want[7] = {9, 8, 7, 6, 5, 4, 3};
            EXPECT_EQ(std::memcmp(buf, want, 7), 0) << tag;
        }
        {
            int64_t src[4] = {4, 3, 2, 1};
            int64_t dst[4] = {};
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_REDUCE;
            a.root = 0;
            a.op = UCC_OP_PROD;
            a.src.info = info(src, 4, UCC_DT_INT64);
            a.dst.info = info(dst, 4, UCC_DT_INT64);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            for (int i = 0; i < 4; ++i) {
                EXPECT_EQ(dst[i], src[i]) << tag << " reduce " << i;
            }
        }
        {
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_BARRIER;
            ASSERT_EQ(run(a), UCC_OK) << tag;
        }
        {
            uint16_t src[3] = {11, 22, 33};
            uint16_t dst[3] = {};
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_ALLGATHER;
            a.src.info = info(src, 3, UCC_DT_UINT16);
            a.dst.info = info(dst, 3, UCC_DT_UINT16);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            EXPECT_EQ(std::memcmp(src, dst, sizeof(src)), 0) << tag;
        }
        {
            float src[6] = {1, 2, 3, 4, 5, 6};
            float dst[6] = {};
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_ALLTOALL;
            a.src.info = info(src, 6, UCC_DT_FLOAT32);
            a.dst.info = info(dst, 6, UCC_DT_FLOAT32);
            ASSERT_EQ(run(a), UCC_OK) << tag;
            EXPECT_EQ(std::memcmp(src, dst, sizeof(src)), 0) << tag;
        }
    }

    ucc_lib_h lib_ = nullptr;
    ucc_context_h ctx_ = nullptr;
    ucc_team_h team_ = nullptr;
};

TEST_F(LifecycleSolo, SixCollectivesAuto) {
    run_all_six("auto");
}

TEST_F(LifecycleSolo, SixCollectivesEveryForcedAlgorithm) {
    close();
    const struct {
        const char *var;
        const char *alg;
    } forced[] = {
        {"ALLREDUCE_ALG", "recursive_doubling"},
        {"ALLREDUCE_ALG", "rabenseifner"},
        {"ALLREDUCE_ALG", "ring"},
        {"BCAST_ALG", "knomial"},
        {"REDUCE_ALG", "knomial"},
        {"BARRIER_ALG", "dissemination"},
        {"BARRIER_ALG", "knomial"},
        {"ALLGATHER_ALG", "bruck"},
        {"ALLGATHER_ALG", "ring"},
        {"ALLTOALL_ALG", "pairwise"},
        {"ALLTOALL_ALG", "linear"},
    };
    for (const auto &f : forced) {
        ASSERT_EQ(init_lib(&lib_), UCC_OK);
        ucc_context_config_h cc = nullptr;
        ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
        ASSERT_EQ(ucc_context_config_modify(cc, nullptr, f.var, f.alg), UCC_OK);
        ASSERT_EQ(create_local_context(lib_, &ctx_, cc), UCC_OK);
        ucc_context_config_release(cc);
        ASSERT_EQ(create_team(ctx_, solo_params(), &team_), UCC_OK);
        run_all_six(std::string(f.var) + "=" + f.alg);
        close();
    }
}

TEST_F(LifecycleSolo, UnknownForcedAlgorithmIsNotSupportedAtInit) {
    close();
    ASSERT_EQ(init_lib(&lib_), UCC_OK);
    ucc_context_config_h cc = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    ASSERT_EQ(ucc_context_config_modify(cc, nullptr, "ALLREDUCE_ALG", "no_such_alg"), UCC_OK);
    ASSERT_EQ(create_local_context(lib_, &ctx_, cc), UCC_OK);
    ucc_context_config_release(cc);
    ASSERT_EQ(create_team(ctx_, solo_params(), &team_), UCC_OK);
    int32_t v = 1;
    int32_t r = 0;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(&v, 1, UCC_DT_INT32);
    a.dst.info = info(&r, 1, UCC_DT_INT32);
    ucc_coll_req_h req = nullptr;
    EXPECT_EQ(ucc_collective_init(&a, &req, team_), UCC_ERR_NOT_SUPPORTED);
    EXPECT_EQ(req, nullptr);
    // Other collectives are unaffected.
    ucc_coll_args_t b{};
    b.coll_type = UCC_COLL_TYPE_BARRIER;
    EXPECT_EQ(run(b), UCC_OK);
}

TEST_F(LifecycleSolo, RequestStateMachine) {
    int32_t v[2] = {3, 4};
    int32_t r[2] = {0, 0};
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(v, 2, UCC_DT_INT32);
    a.dst.info = info(r, 2, UCC_DT_INT32);
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, team_), UCC_OK);
    ASSERT_NE(req, nullptr);
    EXPECT_EQ(ucc_collective_test(req), UCC_OPERATION_INITIALIZED);
    // An unposted request can be finalized.
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);

    ASSERT_EQ(ucc_collective_init(&a, &req, team_), UCC_OK);
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    ucc_status_t st = ucc_collective_test(req);
    EXPECT_TRUE(st == UCC_INPROGRESS || st == UCC_OK) << st;
    EXPECT_EQ(wait_request(ctx_, req), UCC_OK);
    EXPECT_EQ(r[0], 3);
    EXPECT_EQ(r[1], 4);
    // Not persistent: a second post is refused and leaves the status alone.
    EXPECT_EQ(ucc_collective_post(req), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_collective_test(req), UCC_OK);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);

    // Persistent: posted again with new inputs.
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
    ASSERT_EQ(ucc_collective_init(&a, &req, team_), UCC_OK);
    for (int32_t k = 0; k < 4; ++k) {
        v[0] = 10 * k;
        v[1] = -k;
        ASSERT_EQ(ucc_collective_post(req), UCC_OK) << k;
        ASSERT_EQ(wait_request(ctx_, req), UCC_OK) << k;
        EXPECT_EQ(r[0], 10 * k);
        EXPECT_EQ(r[1], -k);
    }
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);

    // init_and_post.
    v[0] = 7;
    a.mask = 0;
    ASSERT_EQ(ucc_collective_init_and_post(&a, &req, team_), UCC_OK);
    EXPECT_EQ(wait_request(ctx_, req), UCC_OK);
    EXPECT_EQ(r[0], 7);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    // init_and_post with invalid arguments creates no request.
    a.coll_type = static_cast<ucc_coll_type_t>(0);
    ucc_coll_req_h none = nullptr;
    EXPECT_EQ(ucc_collective_init_and_post(&a, &none, team_), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(none, nullptr);
}

namespace {

struct CbRecord {
    int calls = 0;
    ucc_status_t status = UCC_ERR_LAST;
    ucc_status_t seen_in_request = UCC_ERR_LAST;
    ucc_coll_req_h req = nullptr;
    bool finalize_inside = false;
    ucc_status_t finalize_status = UCC_ERR_LAST;
};

void record_cb(void *data, ucc_status_t st) {
    auto *r = static_cast<CbRecord *>(data);
    ++r->calls;
    r->status = st;
    if (r->req != nullptr) {
        r->seen_in_request = ucc_collective_test(r->req);
        if (r->finalize_inside) {
            r->finalize_status = ucc_collective_finalize(r->req);
            r->req = nullptr;
        }
    }
}

}  // namespace

TEST_F(LifecycleSolo, CompletionCallback) {
    int32_t v = 2;
    int32_t r = 0;
    CbRecord rec;
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_CB | UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
    a.cb.cb = record_cb;
    a.cb.data = &rec;
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(&v, 1, UCC_DT_INT32);
    a.dst.info = info(&r, 1, UCC_DT_INT32);
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, team_), UCC_OK);
    rec.req = req;
    EXPECT_EQ(rec.calls, 0) << "not called at init";
    for (int k = 1; k <= 3; ++k) {
        ASSERT_EQ(ucc_collective_post(req), UCC_OK);
        ASSERT_EQ(wait_request(ctx_, req), UCC_OK);
        for (int i = 0; i < 10; ++i) {
            ucc_context_progress(ctx_);  // no late second call
        }
        EXPECT_EQ(rec.calls, k);
        EXPECT_EQ(rec.status, UCC_OK);
        EXPECT_EQ(rec.seen_in_request, UCC_OK);
    }
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    EXPECT_EQ(rec.calls, 3) << "finalize does not call it";

    // Zero-size: called at post; finalize from inside the callback.
    CbRecord z;
    z.finalize_inside = true;
    a.mask = UCC_COLL_ARGS_FIELD_CB;
    a.cb.data = &z;
    a.src.info = info(nullptr, 0, UCC_DT_INT32);
    a.dst.info = info(nullptr, 0, UCC_DT_INT32);
    ASSERT_EQ(ucc_collective_init(&a, &req, team_), UCC_OK);
    z.req = req;
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    EXPECT_EQ(z.calls, 1);
    EXPECT_EQ(z.status, UCC_OK);
    EXPECT_EQ(z.finalize_status, UCC_OK);
    // A barrier finalized from its callback.
    CbRecord b;
    b.finalize_inside = true;
    ucc_coll_args_t ba{};
    ba.mask = UCC_COLL_ARGS_FIELD_CB;
    ba.coll_type = UCC_COLL_TYPE_BARRIER;
    ba.cb.cb = record_cb;
    ba.cb.data = &b;
    ASSERT_EQ(ucc_collective_init(&ba, &req, team_), UCC_OK);
    b.req = req;
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    for (int i = 0; i < 1000 && b.calls == 0; ++i) {
        ucc_context_progress(ctx_);
    }
    EXPECT_EQ(b.calls, 1);
    EXPECT_EQ(b.finalize_status, UCC_OK);
    // Both requests are gone: the team can be destroyed (TearDown checks).
}

// ---------------------------------------------------------------------------
// Memory maps (>= 1.5)
// ---------------------------------------------------------------------------

TEST_F(LifecycleWithLib, MemMapExportImportUnmap) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    std::vector<uint8_t> buf(4096);
    ucc_mem_map_t seg{buf.data(), buf.size()};
    ucc_mem_map_params_t mp{&seg, 1};
    size_t size = 0;
    ucc_mem_map_mem_h exported = nullptr;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &mp, &size, &exported), UCC_OK);
    ASSERT_NE(exported, nullptr);
    ASSERT_GT(size, 0u);
    // The handle is packable: a byte copy can be imported (as a peer would).
    std::vector<uint8_t> packed(static_cast<const uint8_t *>(exported),
                                static_cast<const uint8_t *>(exported) + size);
    ucc_mem_map_mem_h imported = packed.data();
    size_t isize = 0;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, &isize, &imported), UCC_OK);
    ASSERT_NE(imported, nullptr);
    EXPECT_GT(isize, 0u);
    // Mapped handles keep the context alive.
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_unmap(&imported), UCC_OK);
    EXPECT_EQ(imported, nullptr);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_ERR_INVALID_PARAM);
    // Offload export works like export.
    ucc_mem_map_mem_h off = nullptr;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT_OFFLOAD, &mp, &size, &off), UCC_OK);
    EXPECT_EQ(ucc_mem_unmap(&off), UCC_OK);
    EXPECT_EQ(ucc_mem_unmap(&exported), UCC_OK);
    EXPECT_EQ(exported, nullptr);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleWithLib, MemMapInvalidArguments) {
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    std::vector<uint8_t> buf(64);
    ucc_mem_map_t segs[2] = {{buf.data(), 32}, {buf.data() + 32, 32}};
    ucc_mem_map_params_t mp{segs, 1};
    size_t size = 0;
    ucc_mem_map_mem_h h = nullptr;
    EXPECT_EQ(ucc_mem_map(nullptr, UCC_MEM_MAP_MODE_EXPORT, &mp, &size, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_LAST, &mp, &size, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, static_cast<ucc_mem_map_mode_t>(7), &mp, &size, &h),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &mp, nullptr, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &mp, &size, nullptr),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, nullptr, &size, &h), UCC_ERR_INVALID_PARAM);
    ucc_mem_map_params_t two{segs, 2};
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &two, &size, &h), UCC_ERR_INVALID_PARAM);
    ucc_mem_map_params_t zero{segs, 0};
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &zero, &size, &h), UCC_ERR_INVALID_PARAM);
    ucc_mem_map_params_t noseg{nullptr, 1};
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &noseg, &size, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(h, nullptr);
    // Import: NULL *memh, NULL params, bytes that are not a handle.
    h = nullptr;
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, &size, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, &size, nullptr),
              UCC_ERR_INVALID_PARAM);
    uint64_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    h = junk;
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, &size, &h), UCC_ERR_INVALID_PARAM);
    ucc_mem_map_mem_h good = nullptr;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &mp, &size, &good), UCC_OK);
    h = good;
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, nullptr, &size, &h), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, nullptr, &h), UCC_ERR_INVALID_PARAM);
    // Unmap: NULL, NULL *memh.
    EXPECT_EQ(ucc_mem_unmap(nullptr), UCC_ERR_INVALID_PARAM);
    ucc_mem_map_mem_h null_h = nullptr;
    EXPECT_EQ(ucc_mem_unmap(&null_h), UCC_ERR_INVALID_PARAM);
    // The refusals left exactly one mapping.
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_mem_unmap(&good), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

// ---------------------------------------------------------------------------
// NULL handles and NULL out-pointers, every function that takes one
// ---------------------------------------------------------------------------

TEST_F(LifecycleWithLib, NullArgumentsLibraryAndContext) {
    constexpr ucc_status_t kInv = UCC_ERR_INVALID_PARAM;
    // Library configuration.
    EXPECT_EQ(ucc_lib_config_read(nullptr, nullptr, nullptr), kInv);
    ucc_lib_config_h lc = nullptr;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &lc), UCC_OK);
    EXPECT_EQ(ucc_lib_config_modify(nullptr, "LOG_LEVEL", "INFO"), kInv);
    EXPECT_EQ(ucc_lib_config_modify(lc, nullptr, "INFO"), kInv);
    EXPECT_EQ(ucc_lib_config_modify(lc, "LOG_LEVEL", nullptr), kInv);
    ucc_lib_config_print(nullptr, stderr, "t", UCC_CONFIG_PRINT_CONFIG);
    ucc_lib_config_print(lc, nullptr, "t", UCC_CONFIG_PRINT_CONFIG);
    EXPECT_NE(print_lib_config(lc, nullptr, UCC_CONFIG_PRINT_HEADER | UCC_CONFIG_PRINT_CONFIG), "");
    ucc_lib_config_release(lc);
    ucc_lib_config_release(nullptr);
    // Library.
    ucc_lib_params_t lp{};
    EXPECT_EQ(ucc_init(nullptr, nullptr, nullptr), kInv);
    EXPECT_EQ(ucc_init(&lp, nullptr, nullptr), kInv);
    EXPECT_EQ(ucc_finalize(nullptr), kInv);
    ucc_lib_attr_t la{};
    la.mask = UCC_LIB_ATTR_FIELD_THREAD_MODE;
    EXPECT_EQ(ucc_lib_get_attr(nullptr, &la), kInv);
    EXPECT_EQ(ucc_lib_get_attr(lib_, nullptr), kInv);
    // Context configuration.
    ucc_context_config_h cc = nullptr;
    EXPECT_EQ(ucc_context_config_read(nullptr, nullptr, &cc), kInv);
    EXPECT_EQ(ucc_context_config_read(lib_, nullptr, nullptr), kInv);
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(nullptr, nullptr, "KNOMIAL_RADIX", "2"), kInv);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, nullptr, "2"), kInv);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "KNOMIAL_RADIX", nullptr), kInv);
    ucc_context_config_print(nullptr, stderr, "t", UCC_CONFIG_PRINT_CONFIG);
    ucc_context_config_print(cc, nullptr, "t", UCC_CONFIG_PRINT_CONFIG);
    ucc_context_config_release(cc);
    ucc_context_config_release(nullptr);
    // Context.
    ucc_context_params_t cp{};
    ucc_context_h ctx = nullptr;
    EXPECT_EQ(ucc_context_create(nullptr, &cp, nullptr, &ctx), kInv);
    EXPECT_EQ(ucc_context_create(lib_, nullptr, nullptr, &ctx), kInv);
    EXPECT_EQ(ucc_context_create(lib_, &cp, nullptr, nullptr), kInv);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(ucc_context_progress(nullptr), kInv);
    EXPECT_EQ(ucc_context_destroy(nullptr), kInv);
    ucc_context_attr_t ca{};
    ca.mask = UCC_CONTEXT_ATTR_FIELD_TYPE;
    EXPECT_EQ(ucc_context_get_attr(nullptr, &ca), kInv);
    ASSERT_EQ(create_local_context(lib_, &ctx), UCC_OK);
    EXPECT_EQ(ucc_context_get_attr(ctx, nullptr), kInv);
    EXPECT_EQ(ucc_context_progress(ctx), UCC_OK);
    // Memory maps.
    size_t sz = 0;
    ucc_mem_map_mem_h mh = nullptr;
    EXPECT_EQ(ucc_mem_map(nullptr, UCC_MEM_MAP_MODE_EXPORT, nullptr, &sz, &mh), kInv);
    EXPECT_EQ(ucc_mem_unmap(nullptr), kInv);
    // Datatypes.
    ucc_generic_dt_ops_t ops{};
    ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
    ops.contig_size = 4;
    ucc_datatype_t dt = 0;
    EXPECT_EQ(ucc_dt_create_generic(nullptr, nullptr, &dt), kInv);
    EXPECT_EQ(ucc_dt_create_generic(&ops, nullptr, nullptr), kInv);
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    ucc_dt_destroy(dt);
    ucc_dt_destroy(UCC_DT_INT32);  // predefined: nothing to do
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(LifecycleSolo, NullArgumentsTeamCollectiveAndEe) {
    constexpr ucc_status_t kInv = UCC_ERR_INVALID_PARAM;
    // Team.
    ucc_team_params_t tp = solo_params();
    ucc_team_h t = nullptr;
    ucc_context_h null_ctx = nullptr;
    EXPECT_EQ(ucc_team_create_post(nullptr, 1, &tp, &t), kInv);
    EXPECT_EQ(ucc_team_create_post(&null_ctx, 1, &tp, &t), kInv);
    EXPECT_EQ(ucc_team_create_post(&ctx_, 1, nullptr, &t), kInv);
    EXPECT_EQ(ucc_team_create_post(&ctx_, 1, &tp, nullptr), kInv);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(ucc_team_create_test(nullptr), kInv);
    EXPECT_EQ(ucc_team_destroy(nullptr), kInv);
    ucc_team_attr_t ta{};
    ta.mask = UCC_TEAM_ATTR_FIELD_SIZE;
    EXPECT_EQ(ucc_team_get_attr(nullptr, &ta), kInv);
    EXPECT_EQ(ucc_team_get_attr(team_, nullptr), kInv);
    EXPECT_EQ(ucc_team_create_from_parent(0, 1, nullptr, &t), kInv);
    EXPECT_EQ(ucc_team_create_from_parent(0, 1, team_, nullptr), kInv);
    // Collectives.
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    ucc_coll_req_h req = nullptr;
    EXPECT_EQ(ucc_collective_init(nullptr, &req, team_), kInv);
    EXPECT_EQ(ucc_collective_init(&a, nullptr, team_), kInv);
    EXPECT_EQ(ucc_collective_init(&a, &req, nullptr), kInv);
    EXPECT_EQ(ucc_collective_init_and_post(nullptr, &req, team_), kInv);
    EXPECT_EQ(ucc_collective_init_and_post(&a, nullptr, team_), kInv);
    EXPECT_EQ(ucc_collective_init_and_post(&a, &req, nullptr), kInv);
    EXPECT_EQ(req, nullptr);
    EXPECT_EQ(ucc_collective_post(nullptr), kInv);
    EXPECT_EQ(ucc_collective_finalize(nullptr), kInv);
    // Execution engines.
    ucc_ee_params_t ep{};
    ep.ee_type = UCC_EE_CPU_THREAD;
    ucc_ee_h ee = nullptr;
    ucc_ev_t ev{};
    ucc_ev_t *evp = nullptr;
    EXPECT_EQ(ucc_ee_create(nullptr, &ep, &ee), kInv);
    EXPECT_EQ(ucc_ee_create(team_, nullptr, &ee), kInv);
    EXPECT_EQ(ucc_ee_create(team_, &ep, nullptr), kInv);
    ep.ee_type = UCC_EE_LAST;
    EXPECT_EQ(ucc_ee_create(team_, &ep, &ee), kInv);
    EXPECT_EQ(ucc_ee_destroy(nullptr), kInv);
    EXPECT_EQ(ucc_ee_get_event(nullptr, &evp), kInv);
    EXPECT_EQ(ucc_ee_ack_event(nullptr, &ev), kInv);
    EXPECT_EQ(ucc_ee_set_event(nullptr, &ev), kInv);
    EXPECT_EQ(ucc_ee_wait(nullptr, &ev), kInv);
    EXPECT_EQ(ucc_collective_triggered_post(nullptr, &ev), kInv);
    // The team is intact after all of that.
    ASSERT_EQ(ucc_team_get_attr(team_, &ta), UCC_OK);
    EXPECT_EQ(ta.size, 1u);
    run_all_six("after NULL-argument calls");
}

// ---------------------------------------------------------------------------
// Configuration names of the reference UCC (docs/configuration.md): every name
// it documents for its library and context configuration is accepted, with the
// values it accepts; an unknown name still answers UCC_ERR_NOT_FOUND.
// ---------------------------------------------------------------------------
namespace {

struct NameValue {
    const char *name;
    const char *value;
};

// ucc_global_opts.c and ucc_lib.c (with TLS of the CL library configuration).
constexpr NameValue kReferenceLibNames[] = {
    {"LOG_LEVEL", "diag"},
    {"COLL_TRACE", "diag"},
    {"CLS", "basic"},
    {"TLS", "ucp,self"},
    {"COMPONENT_PATH", "/opt/u"},
    {"PROFILE_MODE", "log,accum"},
    {"PROFILE_FILE", "u.prof"},
    {"PROFILE_LOG_SIZE", "8m"},
    {"CONFIG_FILE", ""},
    {"LOG_FILE", "ucc.log"},
    {"LOG_FILE_SIZE", "inf"},
    {"LOG_FILE_ROTATE", "2"},
    {"LOG_BUFFER", "2048"},
    {"LOG_DATA_SIZE", "16"},
    {"LOG_PRINT_ENABLE", "y"},
    {"LOG_LEVEL_TRIGGER", "error"},
    {"CHECK_ASYMMETRIC_DT", "n"},
};

// ucc_context.c, the CL/TL base context configuration (TUNE) and tl/ucp's.
constexpr NameValue kReferenceContextNames[] = {
    {"ESTIMATED_NUM_EPS", "64"},
    {"ESTIMATED_NUM_PPN", "8"},
    {"LOCK_FREE_PROGRESS_Q", "1"},
    {"TEAM_IDS_POOL_SIZE", "64"},
    {"INTERNAL_OOB", "2"},
    {"THROTTLE_PROGRESS", "100"},
    {"TUNE", "allreduce:0-inf:@1"},
    {"PRECONNECT", "16"},
    {"NPOLLS", "5"},
    {"OOB_NPOLLS", "30"},
    {"PRE_REG_MEM", "1"},
    {"SERVICE_WORKER", "yes"},
    {"SERVICE_THROTTLING_THRESH", "50"},
    {"LOCAL_COPY_TYPE", "mc"},
    {"MEMTYPE_COPY_ENABLE", "n"},
};

// Clears the environment variables of every name above for one scope.
struct CleanReferenceEnv {
    std::vector<std::unique_ptr<ScopedEnv>> vars;
    CleanReferenceEnv() {
        for (const NameValue &nv : kReferenceLibNames) {
            vars.push_back(
                std::make_unique<ScopedEnv>((std::string("UCC_") + nv.name).c_str(), nullptr));
        }
        for (const NameValue &nv : kReferenceContextNames) {
            vars.push_back(
                std::make_unique<ScopedEnv>((std::string("UCC_") + nv.name).c_str(), nullptr));
        }
    }
};

}  // namespace

TEST(LifecycleLibConfig, ReferenceLibraryNamesAreAccepted) {
    CleanReferenceEnv env;
    ucc_lib_config_h cfg = nullptr;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
    for (const NameValue &nv : kReferenceLibNames) {
        EXPECT_EQ(ucc_lib_config_modify(cfg, nv.name, nv.value), UCC_OK) << nv.name;
        EXPECT_TRUE(has_line(print_lib_config(cfg), std::string("UCC_") + nv.name + "=" + nv.value))
            << nv.name;
    }
    // The reference's values only; an unknown name fails as before.
    EXPECT_EQ(ucc_lib_config_modify(cfg, "CLS", "basic,hier,all"), UCC_OK);
    for (const char *lvl : {"warning", "diag", "data", "func", "poll", "req", "async"}) {
        EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", lvl), UCC_OK) << lvl;
    }
    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_LEVEL", "warn"), UCC_OK);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "CLS", "nccl"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "CLS", ""), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "PROFILE_MODE", "log,sometimes"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_FILE_ROTATE", "-1"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "LOG_PRINT_ENABLE", "maybe"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "COLL_TRACE", "loud"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "THROTTLED_PROGRESS", "1"), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(ucc_lib_config_modify(cfg, "NO_SUCH_VARIABLE", "1"), UCC_ERR_NOT_FOUND);
    EXPECT_TRUE(has_line(print_lib_config(cfg), "UCC_CLS=basic,hier,all"));
    // A library initialises from it.
    ucc_lib_h lib = nullptr;
    ASSERT_EQ(init_lib(&lib, cfg), UCC_OK);
    ucc_lib_config_release(cfg);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

TEST_F(LifecycleWithLib, ReferenceContextNamesAreAccepted) {
    CleanReferenceEnv env;
    ucc_context_config_h cc = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cc), UCC_OK);
    for (const NameValue &nv : kReferenceContextNames) {
        EXPECT_EQ(ucc_context_config_modify(cc, nullptr, nv.name, nv.value), UCC_OK) << nv.name;
        EXPECT_TRUE(has_line(print_ctx_config(cc), std::string("UCC_") + nv.name + "=" + nv.value))
            << nv.name;
    }
    // Through the components this library has (the component check is unchanged).
    EXPECT_EQ(ucc_context_config_modify(cc, "cl/basic", "TUNE", "0"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cc, "all", "TUNE", "inf"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cc, "tl/self", "NPOLLS", "7"), UCC_OK);
    // The reference's values only; an unknown name fails as before.
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ESTIMATED_NUM_EPS", "many"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ESTIMATED_NUM_PPN", "-1"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "LOCAL_COPY_TYPE", "dma"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ESTIMATED_NUM_EPS", "inf"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "THROTTLED_PROGRESS", "1"), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "NO_SUCH_VAR", "1"), UCC_ERR_NOT_FOUND);
    // A context is created from it, and works.
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib_, &ctx, cc), UCC_OK);
    ucc_context_config_release(cc);
    ucc_team_h team = nullptr;
    ASSERT_EQ(create_team(ctx, solo_params(), &team), UCC_OK);
    int32_t src[3] = {1, 2, 3};
    int32_t dst[3] = {};
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(src, 3, UCC_DT_INT32);
    a.dst.info = info(dst, 3, UCC_DT_INT32);
    EXPECT_EQ(run_collective(ctx, team, a), UCC_OK);
    EXPECT_EQ(dst[2], 3);
    EXPECT_EQ(destroy_team(team), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

// Open MPI's coll/ucc component makes exactly these calls and turns UCC off
// when one of them fails.
TEST(LifecycleLibConfig, OpenMpiCollUccSequence) {
    CleanReferenceEnv env;
    ucc_lib_config_h lib_config = nullptr;
    ASSERT_EQ(ucc_lib_config_read("OMPI", nullptr, &lib_config), UCC_OK);
    ASSERT_EQ(ucc_lib_config_modify(lib_config, "CLS", "basic"), UCC_OK);
    ucc_lib_h lib = nullptr;
    ASSERT_EQ(init_lib(&lib, lib_config), UCC_OK);
    ucc_lib_config_release(lib_config);
    ucc_context_config_h ctx_config = nullptr;
    ASSERT_EQ(ucc_context_config_read(lib, nullptr, &ctx_config), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(ctx_config, nullptr, "ESTIMATED_NUM_EPS", "1024"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(ctx_config, nullptr, "ESTIMATED_NUM_PPN", "32"), UCC_OK);
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(create_local_context(lib, &ctx, ctx_config), UCC_OK);
    ucc_context_config_release(ctx_config);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

// An ignored variable that was set gives one DEBUG line when its library or
// context is created; defaults and lower log levels give none.
TEST(LifecycleLibConfig, IgnoredNamesLogOneDebugLine) {
    CleanReferenceEnv env;
    auto run = [](const char *level) {
        ucc_lib_config_h lc = nullptr;
        EXPECT_EQ(ucc_lib_config_read(nullptr, nullptr, &lc), UCC_OK);
        EXPECT_EQ(ucc_lib_config_modify(lc, "LOG_LEVEL", level), UCC_OK);
        EXPECT_EQ(ucc_lib_config_modify(lc, "PROFILE_MODE", "log"), UCC_OK);
        ::testing::internal::CaptureStderr();
        ucc_lib_h lib = nullptr;
        EXPECT_EQ(init_lib(&lib, lc), UCC_OK);
        ucc_lib_config_release(lc);
        ucc_context_config_h cc = nullptr;
        EXPECT_EQ(ucc_context_config_read(lib, nullptr, &cc), UCC_OK);
        EXPECT_EQ(ucc_context_config_modify(cc, nullptr, "ESTIMATED_NUM_EPS", "64"), UCC_OK);
        ucc_context_h ctx = nullptr;
        EXPECT_EQ(create_local_context(lib, &ctx, cc), UCC_OK);
        ucc_context_config_release(cc);
        EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
        return ::testing::internal::GetCapturedStderr();
    };
    const std::string debug = run("DEBUG");
    EXPECT_NE(debug.find("DEBUG"), std::string::npos) << debug;
    EXPECT_NE(debug.find("UCC_PROFILE_MODE=log accepted for compatibility"), std::string::npos)
        << debug;
    EXPECT_NE(debug.find("UCC_ESTIMATED_NUM_EPS=64 accepted for compatibility"), std::string::npos)
        << debug;
    EXPECT_EQ(debug.find("UCC_TLS="), std::string::npos) << debug;  // not set
    EXPECT_EQ(run("WARN").find("accepted for compatibility"), std::string::npos);
}

// COLL_TRACE: INFO traces inits on team rank 0, DEBUG posts and finalizes too;
// the default traces nothing. LOG_LEVEL does not filter these lines.
TEST(LifecycleLibConfig, CollTrace) {
    CleanReferenceEnv env;
    ScopedEnv level("UCC_LOG_LEVEL", nullptr);
    auto run = [](const char *trace) {
        ucc_lib_config_h lc = nullptr;
        EXPECT_EQ(ucc_lib_config_read(nullptr, nullptr, &lc), UCC_OK);
        if (trace != nullptr) {
            EXPECT_EQ(ucc_lib_config_modify(lc, "COLL_TRACE", trace), UCC_OK);
        }
        ucc_lib_h lib = nullptr;
        EXPECT_EQ(init_lib(&lib, lc), UCC_OK);
        ucc_lib_config_release(lc);
        ucc_context_h ctx = nullptr;
        EXPECT_EQ(create_local_context(lib, &ctx), UCC_OK);
        ucc_team_h team = nullptr;
        EXPECT_EQ(create_team(ctx, solo_params(), &team), UCC_OK);
        int32_t src[2] = {4, 5};
        int32_t dst[2] = {};
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = info(src, 2, UCC_DT_INT32);
        a.dst.info = info(dst, 2, UCC_DT_INT32);
        ::testing::internal::CaptureStderr();
        EXPECT_EQ(run_collective(ctx, team, a), UCC_OK);
        const std::string out = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(destroy_team(team), UCC_OK);
        EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
        return out;
    };
    EXPECT_EQ(run(nullptr), "");
    const std::string info_out = run("INFO");
    EXPECT_NE(info_out.find("coll init: req"), std::string::npos) << info_out;
    EXPECT_NE(info_out.find("allreduce team"), std::string::npos) << info_out;
    EXPECT_NE(info_out.find("count 2 dt int32"), std::string::npos) << info_out;
    EXPECT_EQ(info_out.find("coll post"), std::string::npos) << info_out;
    const std::string debug_out = run("DEBUG");
    EXPECT_NE(debug_out.find("coll init"), std::string::npos) << debug_out;
    EXPECT_NE(debug_out.find("coll post"), std::string::npos) << debug_out;
    EXPECT_NE(debug_out.find("coll finalize"), std::string::npos) << debug_out;
}
