#include "tls_context.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "http_server.h"

namespace meshscope::server {

namespace {
// Empty when the file can be opened for reading, else why not.
std::string unreadable(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (in) return {};
    return std::strerror(errno);
}
}  // namespace

Expected<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(const std::string& cert_file,
                                                                      const std::string& key_file) {
    namespace ssl = boost::asio::ssl;
    if (const auto why = unreadable(cert_file); !why.empty())
        return RuntimeError("cannot read TLS certificate " + cert_file + ": " + why);
    if (const auto why = unreadable(key_file); !why.empty())
        return RuntimeError("cannot read TLS key " + key_file + ": " + why);
    auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    boost::system::error_code error;
    context->use_certificate_chain_file(cert_file, error);
    if (error) return RuntimeError("TLS certificate " + cert_file + " is not a PEM certificate");
    context->use_private_key_file(key_file, ssl::context::pem, error);
    if (error) {
        // OpenSSL checks the key against the certificate as it loads it: tell a wrong key from a non-key.
        ssl::context probe(ssl::context::tls_server);
        boost::system::error_code alone;
        probe.use_private_key_file(key_file, ssl::context::pem, alone);
        if (alone) return RuntimeError("TLS key " + key_file + " is not a PEM private key");
        return RuntimeError("TLS key " + key_file + " does not belong to the certificate " + cert_file);
    }
    if (SSL_CTX_check_private_key(context->native_handle()) != 1)
        return RuntimeError("TLS key " + key_file + " does not belong to the certificate " + cert_file);
    return context;
}

Expected<bool> check_tls_files(const std::string& cert_file, const std::string& key_file) {
    auto context = make_tls_context(cert_file, key_file);
    if (!context) return context.error();
    return true;
}

}  // namespace meshscope::server
