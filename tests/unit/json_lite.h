// A small JSON reader for tests (objects, arrays, strings, numbers, true/false/null); throws
// std::runtime_error on malformed input, so a test can check that output is valid JSON.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace ctorch::testing::json {

struct Value;
using Object = std::map<std::string, Value>;
using Array = std::vector<Value>;

/// One JSON value.
struct Value {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>, std::shared_ptr<Object>> v;
  bool is_object() const { return std::holds_alternative<std::shared_ptr<Object>>(v); }
  bool is_array() const { return std::holds_alternative<std::shared_ptr<Array>>(v); }
  bool is_string() const { return std::holds_alternative<std::string>(v); }
  bool is_number() const { return std::holds_alternative<double>(v); }
  const Object& object() const { return *std::get<std::shared_ptr<Object>>(v); }
  const Array& array() const { return *std::get<std::shared_ptr<Array>>(v); }
  const std::string& string() const { return std::get<std::string>(v); }
  double number() const { return std::get<double>(v); }
  bool has(const std::string& k) const { return is_object() && object().count(k) != 0; }
  const Value& operator[](const std::string& k) const { return object().at(k); }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Value parse() {
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("invalid JSON at offset " + std::to_string(i_) + ": " + what);
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void word(const char* w) {
    for (const char* p = w; *p; ++p, ++i_) {
      if (i_ >= s_.size() || s_[i_] != *p) fail(std::string("expected ") + w);
    }
  }
  Value value() {
    const char c = peek();
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return Value{str()};
    if (c == 't') return word("true"), Value{true};
    if (c == 'f') return word("false"), Value{false};
    if (c == 'n') return word("null"), Value{nullptr};
    return number();
  }
  Value object() {
    expect('{');
    auto o = std::make_shared<Object>();
    if (peek() == '}') {
      ++i_;
      return Value{o};
    }
    for (;;) {
      if (peek() != '"') fail("expected a key");
      std::string k = str();
      expect(':');
      (*o)[k] = value();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      return Value{o};
    }
  }
  Value array() {
    expect('[');
    auto a = std::make_shared<Array>();
    if (peek() == ']') {
      ++i_;
      return Value{a};
    }
    for (;;) {
      a->push_back(value());
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(']');
      return Value{a};
    }
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c == '\\') {
        if (i_ >= s_.size()) fail("bad escape");
        const char e = s_[i_++];
        switch (e) {
          case '"': case '\\': case '/': out += e; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u':
            if (i_ + 4 > s_.size()) fail("bad \\u escape");
            out += static_cast<char>(std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16));
            i_ += 4;
            break;
          default: fail("bad escape");
        }
      } else {
        out += c;
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  Value number() {
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                              s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-')) {
      ++i_;
    }
    if (start == i_) fail("expected a value");
    char* end = nullptr;
    const std::string text = s_.substr(start, i_ - start);
    const double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) fail("bad number '" + text + "'");
    return Value{d};
  }

  const std::string& s_;
  size_t i_ = 0;
};

/// Parses `text`; throws std::runtime_error when it is not valid JSON.
inline Value parse(const std::string& text) { return Parser(text).parse(); }

}  // namespace ctorch::testing::json
