// Errors are part of the API: every message is exact text that tests compare character for character.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace meshscope {

// The Python exception class the original code raises for this error, so that messages read the same
// in MeshScope as in the training log ("ValueError: ep_size must be positive, got 0."). AssertionError is
// what TorchTitan's ParallelDims raises for a world its degrees do not multiply to (peer_layout.h).
enum class ErrorType { value_error, runtime_error, key_error, assertion_error };

[[nodiscard]] std::string_view python_name(ErrorType type) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorType type, const std::string& message) : std::runtime_error(message), type_(type) {}
    [[nodiscard]] ErrorType type() const noexcept { return type_; }
    [[nodiscard]] std::string message() const { return what(); }

private:
    ErrorType type_;
};

class ValueError : public Error {
public:
    explicit ValueError(const std::string& message) : Error(ErrorType::value_error, message) {}
};

class RuntimeError : public Error {
public:
    explicit RuntimeError(const std::string& message) : Error(ErrorType::runtime_error, message) {}
};

class KeyError : public Error {
public:
    explicit KeyError(const std::string& message) : Error(ErrorType::key_error, message) {}
};

class AssertionError : public Error {
public:
    explicit AssertionError(const std::string& message) : Error(ErrorType::assertion_error, message) {}
};

// Throws the subclass that matches error.type(), so `catch (const ValueError&)` works on rethrown errors.
[[noreturn]] void throw_error(const Error& error);

// A value or the typed error that prevented it: factories return this instead of half-built objects.
template <typename T>
class Expected {
public:
    Expected(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    [[nodiscard]] bool has_value() const noexcept { return std::holds_alternative<T>(state_); }
    explicit operator bool() const noexcept { return has_value(); }

    // Returns the value or throws the error (as its typed subclass).
    [[nodiscard]] const T& value() const& {
        if (!has_value()) throw_error(std::get<Error>(state_));
        return std::get<T>(state_);
    }
    [[nodiscard]] T&& value() && {
        if (!has_value()) throw_error(std::get<Error>(state_));
        return std::get<T>(std::move(state_));
    }
    [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }
    const T* operator->() const { return &value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Error> state_;
};

}  // namespace meshscope
