// `meshscope serve --tls-cert FILE --tls-key FILE`: a self-signed certificate made at test time with the
// openssl CLI; a real HTTPS GET and a wss:// stream on loopback (Qt's OpenSSL backend trusting that
// certificate), the C++ reporter with its CA file (and refused without it: verification stays on), and
// files that cannot serve refused with an exact message and exit 2.
#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QTest>

#include "collector_fixture.h"
#include "meshscope/client/reporter.h"
#include "server_test_support.h"
#include "stream_test_client.h"

namespace {
// A self-signed certificate for 127.0.0.1 (P-256: fast to make) and its key, in `dir`.
bool make_certificate(const QString& dir, const QString& name) {
    QProcess openssl;
    openssl.start("openssl", {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                              "-keyout", dir + "/" + name + ".key", "-out", dir + "/" + name + ".pem", "-days", "2",
                              "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"});
    return openssl.waitForFinished(30000) && openssl.exitStatus() == QProcess::NormalExit && openssl.exitCode() == 0;
}

QSslConfiguration trusting(const QString& pem) {
    auto tls = QSslConfiguration::defaultConfiguration();
    tls.setCaCertificates(QSslCertificate::fromPath(pem));
    return tls;
}

const QByteArray launch = R"({"job":"tls","rank":1,"world_size":2,"phase":"launch","status":"started"})";
}  // namespace

class TestTls : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY2(make_certificate(dir_.path(), "server"), "openssl req failed");
        QVERIFY2(make_certificate(dir_.path(), "other"), "openssl req failed");
        QFile text(dir_.filePath("notes.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("not a certificate\n");
    }

    void https_and_wss() {
        test::CollectorConfig config;
        config.tls_cert = dir_.filePath("server.pem");
        config.tls_key = dir_.filePath("server.key");
        auto s = test::start_collector(config);
        QVERIFY(s);
        QVERIFY(s->url.startsWith("https://127.0.0.1:"));
        QNetworkAccessManager nam;
        QNetworkRequest request{QUrl(s->url + "/api/v1/health")};
        request.setSslConfiguration(trusting(config.tls_cert));
        request.setTransferTimeout(10000);
        QNetworkReply* reply = nam.get(request);
        QVERIFY(test::eventually([&] { return reply->isFinished(); }, 10000, 10));
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(reply->readAll(), QByteArray(R"({"status":"ok"})"));
        QCOMPARE(reply->rawHeader("X-Content-Type-Options"), QByteArray("nosniff"));
        reply->deleteLater();

        test::StreamClient stream;
        stream.socket.setSslConfiguration(trusting(config.tls_cert));
        stream.open(QStringLiteral("wss://127.0.0.1:%1/api/v1/stream").arg(s->port()));
        QVERIFY(test::eventually([&] { return stream.messages.size() == 1; }, 10000, 10));
        QCOMPARE(stream.type(0), QString("hello"));

        // The C++ reporter: its CA file trusts the collector; the events arrive on the stream too.
        meshscope::client::ReporterOptions trusted;
        trusted.url = s->url.toStdString();
        trusted.ca_file = config.tls_cert.toStdString();
        meshscope::client::Reporter reporter(trusted);
        QVERIFY(reporter.enqueue(1, launch.toStdString()));
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        QCOMPARE(reporter.stats().acknowledged, 1u);
        QVERIFY(test::eventually([&] { return stream.messages.size() == 2; }, 10000, 10));
        QCOMPARE(stream.seq(1), 1);

        // Without the CA file the self-signed certificate is not trusted: nothing is sent.
        meshscope::client::ReporterOptions system_cas;
        system_cas.url = s->url.toStdString();
        system_cas.connect_timeout = std::chrono::seconds(2);
        system_cas.request_timeout = std::chrono::seconds(2);
        system_cas.shutdown_timeout = std::chrono::milliseconds(300);
        meshscope::client::Reporter untrusting(system_cas);
        QVERIFY(untrusting.enqueue(1, launch.toStdString()));
        QVERIFY(test::eventually([&] { return untrusting.stats().failures >= 1; }, 10000, 10));
        QCOMPARE(untrusting.stats().acknowledged, 0u);
        QVERIFY2(QString::fromStdString(untrusting.stats().last_error).contains("certificate", Qt::CaseInsensitive),
                 untrusting.stats().last_error.c_str());

        // Plain HTTP on the TLS port gets no HTTP answer; the port keeps serving TLS.
        QCOMPARE(test::raw_http(s->port(), "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 3000).status, 0);
        QNetworkReply* again = nam.get(request);
        QVERIFY(test::eventually([&] { return again->isFinished(); }, 10000, 10));
        QCOMPARE(again->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        again->deleteLater();
    }

    void bad_files_data() {
        QTest::addColumn<QStringList>("arguments");  // %1: the test's directory
        QTest::addColumn<QString>("message");
        QTest::addRow("no key") << QStringList{"--tls-cert", "%1/server.pem"}
                                << "meshscope serve: --tls-cert and --tls-key go together: give both";
        QTest::addRow("no certificate") << QStringList{"--tls-key", "%1/server.key"}
                                        << "meshscope serve: --tls-cert and --tls-key go together: give both";
        QTest::addRow("missing certificate")
            << QStringList{"--tls-cert", "%1/none.pem", "--tls-key", "%1/server.key"}
            << "meshscope serve: cannot read TLS certificate %1/none.pem: No such file or directory";
        QTest::addRow("missing key") << QStringList{"--tls-cert", "%1/server.pem", "--tls-key", "%1/none.key"}
                                     << "meshscope serve: cannot read TLS key %1/none.key: No such file or directory";
        QTest::addRow("certificate not PEM")
            << QStringList{"--tls-cert", "%1/notes.txt", "--tls-key", "%1/server.key"}
            << "meshscope serve: TLS certificate %1/notes.txt is not a PEM certificate";
        QTest::addRow("key not PEM") << QStringList{"--tls-cert", "%1/server.pem", "--tls-key", "%1/notes.txt"}
                                     << "meshscope serve: TLS key %1/notes.txt is not a PEM private key";
        QTest::addRow("key of another certificate")
            << QStringList{"--tls-cert", "%1/server.pem", "--tls-key", "%1/other.key"}
            << "meshscope serve: TLS key %1/other.key does not belong to the certificate %1/server.pem";
    }
    void bad_files() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        for (auto& argument : arguments) argument.replace("%1", dir_.path());
        const auto result = test::run_meshscope(
            QStringList{"serve", "--listen", "127.0.0.1:0", "--db", dir_.filePath("bad.db")} + arguments);
        QCOMPARE(result.exit_code, 2);
        QCOMPARE(QString::fromUtf8(result.err).trimmed(), message.replace("%1", dir_.path()));
        QVERIFY(result.out.isEmpty());
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
