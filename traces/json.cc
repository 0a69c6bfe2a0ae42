// The trace lines' JSON reader (json.h).
#include "traces/json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ucc::traces::json {

const Value *Value::get(std::string_view key) const {
    for (const auto &[k, v] : fields) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

namespace {

class Parser {
  public:
    explicit Parser(std::string_view t) : t_(t) {}

    bool document(Value *out, std::string *error) {
        skip_space();
        if (!value(out, 0)) {
            *error = error_;
            return false;
        }
        skip_space();
        if (p_ != t_.size()) {
            *error = "column " + std::to_string(p_ + 1) + ": text after the JSON value";
            return false;
        }
        return true;
    }

  private:
    bool fail(const std::string &why) {
        if (error_.empty()) {
            error_ = "column " + std::to_string(p_ + 1) + ": " + why;
        }
        return false;
    }
    void skip_space() {
        while (p_ < t_.size() &&
               (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r')) {
            ++p_;
        }
    }
    bool literal(std::string_view word) {
        if (t_.substr(p_, word.size()) != word) {
            return fail("unexpected character");
        }
        p_ += word.size();
        return true;
    }

    bool value(Value *v, int depth) {
        if (depth > kMaxDepth) {
            return fail("nested deeper than " + std::to_string(kMaxDepth));
        }
        if (++values_ > kMaxValues) {
            return fail("more than " + std::to_string(kMaxValues) + " values in one line");
        }
        if (p_ >= t_.size()) {
            return fail("unexpected end of the line");
        }
        switch (t_[p_]) {
            case '{':
                return object(v, depth);
            case '[':
                return array(v, depth);
            case '"':
                v->type = Value::Type::kString;
                return string(&v->str);
            case 't':
                v->type = Value::Type::kBool;
                v->boolean = true;
                return literal("true");
            case 'f':
                v->type = Value::Type::kBool;
                v->boolean = false;
                return literal("false");
            case 'n':
                v->type = Value::Type::kNull;
                return literal("null");
            default:
                return number(v);
        }
    }

    bool object(Value *v, int depth) {
        v->type = Value::Type::kObject;
        ++p_;
        skip_space();
        if (p_ < t_.size() && t_[p_] == '}') {
            ++p_;
            return true;
        }
        while (true) {
            skip_space();
            if (p_ >= t_.size() || t_[p_] != '"') {
                return fail("expected a field name");
            }
            std::string key;
            if (!string(&key)) {
                return false;
            }
            skip_space();
            if (p_ >= t_.size() || t_[p_] != ':') {
                return fail("expected ':'");
            }
            ++p_;
            skip_space();
            v->fields.push_back(Field{std::move(key), Value{}});
            if (!value(&v->fields.back().value, depth + 1)) {
                return false;
            }
            skip_space();
            if (p_ < t_.size() && t_[p_] == ',') {
                ++p_;
                continue;
            }
            if (p_ < t_.size() && t_[p_] == '}') {
                ++p_;
                return true;
            }
            return fail("expected ',' or '}'");
        }
    }

    bool array(Value *v, int depth) {
        v->type = Value::Type::kArray;
        ++p_;
        skip_space();
        if (p_ < t_.size() && t_[p_] == ']') {
            ++p_;
            return true;
        }
        while (true) {
            skip_space();
            v->items.emplace_back();
            if (!value(&v->items.back(), depth + 1)) {
                return false;
            }
            skip_space();
            if (p_ < t_.size() && t_[p_] == ',') {
                ++p_;
                continue;
            }
            if (p_ < t_.size() && t_[p_] == ']') {
                ++p_;
                return true;
            }
            return fail("expected ',' or ']'");
        }
    }

    static void utf8(uint32_t cp, std::string *out) {
        if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    bool hex4(uint32_t *out) {
        if (p_ + 4 > t_.size()) {
            return fail("a \\u escape needs four hex digits");
        }
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = t_[p_++];
            v <<= 4;
            if (c >= '0' && c <= '9') {
                v |= static_cast<uint32_t>(c - '0');
            } else if (c >= 'a' && c <= 'f') {
                v |= static_cast<uint32_t>(c - 'a' + 10);
            } else if (c >= 'A' && c <= 'F') {
                v |= static_cast<uint32_t>(c - 'A' + 10);
            } else {
                return fail("a \\u escape needs four hex digits");
            }
        }
        *out = v;
        return true;
    }

    bool string(std::string *out) {
        ++p_;  // the opening quote
        while (true) {
            if (p_ >= t_.size()) {
                return fail("unterminated string");
            }
            const char c = t_[p_++];
            if (c == '"') {
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return fail("a control character in a string");
            }
            if (c != '\\') {
                out->push_back(c);
                continue;
            }
            if (p_ >= t_.size()) {
                return fail("unterminated escape");
            }
            const char e = t_[p_++];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    out->push_back(e);
                    break;
                case 'b':
                    out->push_back('\b');
                    break;
                case 'f':
                    out->push_back('\f');
                    break;
                case 'n':
                    out->push_back('\n');
                    break;
                case 'r':
                    out->push_back('\r');
                    break;
                case 't':
                    out->push_back('\t');
                    break;
                case 'u': {
                    uint32_t cp = 0;
                    if (!hex4(&cp)) {
                        return false;
                    }
                    if (cp >= 0xD800 && cp < 0xDC00) {
                        uint32_t lo = 0;
                        if (t_.substr(p_, 2) != "\\u") {
                            return fail("a lone high surrogate");
                        }
                        p_ += 2;
                        if (!hex4(&lo)) {
                            return false;
                        }
                        if (lo < 0xDC00 || lo >= 0xE000) {
                            return fail("a high surrogate without its low half");
                        }
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp < 0xE000) {
                        return fail("a lone low surrogate");
                    }
                    utf8(cp, out);
                    break;
                }
                default:
                    return fail("an unknown escape");
            }
        }
    }

    bool number(Value *v) {
        v->type = Value::Type::kNumber;
        const size_t start = p_;
        auto digit = [&]() { return p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9'; };
        const bool negative = p_ < t_.size() && t_[p_] == '-';
        if (negative) {
            ++p_;
        }
        if (!digit()) {
            return fail("unexpected character");
        }
        if (t_[p_] == '0') {
            ++p_;
            if (digit()) {
                return fail("a number with a leading zero");
            }
        } else {
            while (digit()) {
                ++p_;
            }
        }
        bool integer = true;
        if (p_ < t_.size() && t_[p_] == '.') {
            integer = false;
            ++p_;
            if (!digit()) {
                return fail("a fraction needs digits");
            }
            while (digit()) {
                ++p_;
            }
        }
        if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
            integer = false;
            ++p_;
            if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) {
                ++p_;
            }
            if (!digit()) {
                return fail("an exponent needs digits");
            }
            while (digit()) {
                ++p_;
            }
        }
        const std::string text(t_.substr(start, p_ - start));
        v->d = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(v->d)) {
            return fail("a number out of range");
        }
        if (!integer) {
            return true;
        }
        // Exact 64-bit integers.
        uint64_t mag = 0;
        for (size_t k = negative ? 1 : 0; k < text.size(); ++k) {
            const uint64_t d = static_cast<uint64_t>(text[k] - '0');
            if (mag > (UINT64_MAX - d) / 10) {
                return true;  // beyond 64 bits: a double only
            }
            mag = mag * 10 + d;
        }
        if (negative && mag > uint64_t{1} << 63) {
            return true;
        }
        v->integer = true;
        v->negative = negative && mag != 0;
        v->u = v->negative ? 0 : mag;
        v->i = v->negative ? static_cast<int64_t>(0 - mag) : 0;
        return true;
    }

    std::string_view t_;
    size_t p_ = 0;
    size_t values_ = 0;
    std::string error_;
};

}  // namespace

bool parse(std::string_view text, Value *out, std::string *error) {
    *out = Value{};
    return Parser(text).document(out, error);
}

}  // namespace ucc::traces::json
