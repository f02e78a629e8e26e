// The collector's TLS (`serve --tls-cert FILE --tls-key FILE`, OpenSSL through Boost.Asio): a server
// context from PEM files, with exact error texts for files that cannot serve. Only http_server.cpp and
// tls_context.cpp include this (OpenSSL's headers are large); others use check_tls_files (http_server.h).
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

#include "meshscope/mesh/error.h"

namespace meshscope::server {

// TLS 1.2 or later, the certificate chain and the key from PEM files. RuntimeError:
//   "cannot read TLS certificate FILE: REASON" / "cannot read TLS key FILE: REASON"
//   "TLS certificate FILE is not a PEM certificate"
//   "TLS key FILE is not a PEM private key"
//   "TLS key FILE does not belong to the certificate CERT"
[[nodiscard]] Expected<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(const std::string& cert_file,
                                                                                    const std::string& key_file);

}  // namespace meshscope::server
