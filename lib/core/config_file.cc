// Configuration files: where UCC_CONFIG_FILE points, and reading one. The
// syntax is the reference's (an INI file): NAME=VALUE or NAME: VALUE lines,
// '#' and ';' comment lines, ';' after a blank ends a line's value, and
// [key=value ...] section headers whose keys are vendor, model, team_size,
// ppn, sock and nnodes.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/transport.h"  // RunShare
#include "lib/util/parse.h"

namespace ucc::core {

namespace {

bool exists(const std::string &path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A section header's keys must be the reference's; values are N or a-b.
bool valid_section(const std::string &header, std::string *why) {
    static constexpr const char *kKeys[] = {"vendor", "model", "team_size",
                                            "ppn",    "sock",  "nnodes"};
    size_t pos = 0;
    while (pos < header.size()) {
        while (pos < header.size() && header[pos] == ' ') {
            ++pos;
        }
        if (pos == header.size()) {
            break;
        }
        size_t end = header.find(' ', pos);
        if (end == std::string::npos) {
            end = header.size();
        }
        const std::string kv = header.substr(pos, end - pos);
        const size_t eq = kv.find('=');
        const std::string key = kv.substr(0, eq);
        bool known = false;
        for (const char *k : kKeys) {
            known = known || key == k;
        }
        if (eq == std::string::npos || !known) {
            *why = "key " + key + " not defined as part of tuning section params";
            return false;
        }
        pos = end;
    }
    return true;
}

}  // namespace

std::string library_dir() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&library_dir), &info) == 0 || info.dli_fname == nullptr) {
        return "";
    }
    const std::string path = info.dli_fname;
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : (slash == 0 ? "/" : path.substr(0, slash));
}

std::string install_prefix() {
    const std::string dir = library_dir();
    const size_t slash = dir.rfind('/');
    if (dir.empty() || dir == "/" || slash == std::string::npos) {
        return "";
    }
    return slash == 0 ? "/" : dir.substr(0, slash);
}

std::string config_file_path() {
    const char *v = std::getenv("UCC_CONFIG_FILE");
    std::string value = v != nullptr ? v : "auto";
    if (value.empty()) {
        return "";
    }
    std::string lower = value;
    for (char &c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (lower != "auto") {
        return value;
    }
    if (const char *home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
        if (const std::string p = std::string(home) + "/ucc.conf"; exists(p)) {
            return p;
        }
    }
    const std::string prefix = install_prefix();
    if (prefix.empty()) {
        return "";
    }
    for (const char *rel : {"/share/ucc/ucc.conf", "/share/ucc.conf"}) {
        if (const std::string p = prefix + rel; exists(p)) {
            return p;
        }
    }
    return "";
}

namespace {

// The core's share of a run (TransportEntry::run_share): the configuration
// file as read, under the environment it was looked for in.
class ConfigFileShare final : public RunShare {
  public:
    std::string env_file;  // UCC_CONFIG_FILE ("\n" unset)
    std::string env_home;  // HOME ("\n" unset)
    std::shared_ptr<const ConfigFileRead> read;
};

std::string env_or_unset(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr ? v : "\n";
}

std::shared_ptr<const ConfigFileRead> read_configured_file() {
    auto out = std::make_shared<ConfigFileRead>();
    out->path = config_file_path();
    if (!out->path.empty()) {
        std::vector<ConfigLine> lines;
        out->status = read_config_file(out->path, &lines, &out->error);
        if (out->status == UCC_OK && !lines.empty()) {
            out->lines = std::make_shared<const std::vector<ConfigLine>>(std::move(lines));
        }
    }
    return out;
}

}  // namespace

std::shared_ptr<const ConfigFileRead> configured_file(std::unique_ptr<RunShare> *slot) {
    if (slot == nullptr) {
        return read_configured_file();
    }
    std::string env_file = env_or_unset("UCC_CONFIG_FILE");
    std::string env_home = env_or_unset("HOME");
    auto *share = dynamic_cast<ConfigFileShare *>(slot->get());
    if (share == nullptr || share->env_file != env_file || share->env_home != env_home) {
        auto fresh = std::make_unique<ConfigFileShare>();
        fresh->env_file = std::move(env_file);
        fresh->env_home = std::move(env_home);
        fresh->read = read_configured_file();
        share = fresh.get();
        *slot = std::move(fresh);
    }
    return share->read;
}

ucc_status_t read_config_file(const std::string &path, std::vector<ConfigLine> *out,
                              std::string *error) {
    std::ifstream in(path);
    if (!in) {
        *error = path + ": cannot be opened";
        return UCC_ERR_NOT_FOUND;
    }
    return read_config(in, path, out, error);
}

ucc_status_t read_config(std::istream &in, const std::string &path, std::vector<ConfigLine> *out,
                         std::string *error) {
    std::string line;
    std::string section;
    int lineno = 0;
    auto fail = [&](const std::string &why) {
        *error = path + ":" + std::to_string(lineno) + ": " + why;
        return UCC_ERR_INVALID_PARAM;
    };
    while (std::getline(in, line)) {
        ++lineno;
        if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) {
            line = line.substr(3);  // a UTF-8 byte order mark
        }
        // An inline comment: ';' or '#' after a blank.
        for (size_t i = 1; i < line.size(); ++i) {
            if ((line[i] == ';' || line[i] == '#') &&
                std::isspace(static_cast<unsigned char>(line[i - 1]))) {
                line.resize(i);
                break;
            }
        }
        line = trim(line);
        if (line.empty() || line[0] == '#' || line[0] == ';') {
            continue;
        }
        if (line[0] == '[') {
            if (line.back() != ']') {
                return fail("a section header without ']'");
            }
            section = trim(line.substr(1, line.size() - 2));
            std::string why;
            if (!valid_section(section, &why)) {
                return fail(why);
            }
            continue;
        }
        const size_t sep = line.find_first_of("=:");
        if (sep == std::string::npos) {
            return fail("expected NAME=VALUE");
        }
        ConfigLine l;
        l.name = trim(line.substr(0, sep));
        l.value = trim(line.substr(sep + 1));
        l.section = section;
        l.line = lineno;
        if (l.name.empty()) {
            return fail("a line without a name");
        }
        for (const ConfigLine &prev : *out) {
            if (prev.name == l.name && prev.section == l.section) {
                return fail("found duplicate '" + l.name + "' in config file");
            }
        }
        out->push_back(std::move(l));
    }
    return UCC_OK;
}

}  // namespace ucc::core
