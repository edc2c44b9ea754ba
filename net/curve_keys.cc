#include "net/curve_keys.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/ascii.h"
#include "net/zmq_io.h"

namespace zcrawl {
namespace {

bool IsZ85Key(const std::string& key) {
  if (key.size() != 40) return false;
  uint8_t decoded[32];
  return zmq_z85_decode(decoded, key.c_str()) != nullptr;
}

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read key file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<CurveKeyPair> GenerateCurveKeyPair() {
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) return UnavailableError("this libzmq has no CURVE support");
  return CurveKeyPair{pub, sec};
}

Status WriteCurveKeyFiles(const std::string& dir, const std::string& name, const CurveKeyPair& pair) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string key_path = dir + "/" + name + ".key";
  const std::string pub_path = dir + "/" + name + ".pub";
  if (std::filesystem::exists(key_path) || std::filesystem::exists(pub_path)) {
    return InvalidArgumentError(key_path + " or " + pub_path + " exists; not overwriting keys");
  }
  {
    std::ofstream key(key_path);
    key << "public = " << pair.public_key << "\nsecret = " << pair.secret_key << "\n";
    if (!key) return UnavailableError("cannot write " + key_path);
  }
  chmod(key_path.c_str(), 0600);
  std::ofstream pub(pub_path);
  pub << pair.public_key << "\n";
  if (!pub) return UnavailableError("cannot write " + pub_path);
  return Status::Ok();
}

Result<CurveKeyPair> LoadCurveKeyPair(const std::string& path) {
  auto text = ReadWhole(path);
  if (!text.ok()) return text.status();
  CurveKeyPair pair;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = std::string(TrimAsciiWhitespace(line.substr(0, eq)));
    const std::string value = std::string(TrimAsciiWhitespace(line.substr(eq + 1)));
    if (key == "public") pair.public_key = value;
    if (key == "secret") pair.secret_key = value;
  }
  if (!IsZ85Key(pair.public_key) || !IsZ85Key(pair.secret_key)) {
    return InvalidArgumentError(path + " is not a key pair file (expected 'public = ...' and 'secret = ...')");
  }
  return pair;
}

Result<std::string> LoadCurvePublicKey(const std::string& path) {
  auto text = ReadWhole(path);
  if (!text.ok()) return text.status();
  std::string key = std::string(TrimAsciiWhitespace(*text));
  if (key.rfind("public", 0) == 0) {  // a .key file given where a .pub was meant
    auto pair = LoadCurveKeyPair(path);
    if (!pair.ok()) return pair.status();
    key = pair->public_key;
  }
  if (!IsZ85Key(key)) return InvalidArgumentError(path + " does not hold a Z85 public key");
  return key;
}

Result<std::set<std::string>> LoadCurveAllowList(const std::string& path) {
  std::set<std::string> keys;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.path().extension() != ".pub") continue;
      auto key = LoadCurvePublicKey(entry.path().string());
      if (!key.ok()) return key.status();
      keys.insert(*key);
    }
  } else {
    auto text = ReadWhole(path);
    if (!text.ok()) return text.status();
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
      // '#' is a Z85 digit too: a comment is a line that starts with it, or
      // what follows a key after a blank ("KEY  # host1").
      line = std::string(TrimAsciiWhitespace(line));
      if (line.empty() || line.front() == '#') continue;
      line = line.substr(0, line.find_first_of(" \t"));
      if (!IsZ85Key(line)) return InvalidArgumentError(path + ": not a Z85 public key: " + line);
      keys.insert(line);
    }
  }
  if (keys.empty()) return InvalidArgumentError("allow-list " + path + " holds no public keys");
  return keys;
}

Status MakeCurveServer(zmq::socket_t& socket, const CurveKeyPair& own) {
  try {
    socket.set(zmq::sockopt::curve_server, 1);
    socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
    socket.set(zmq::sockopt::zap_domain, std::string("zcrawl"));
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return InvalidArgumentError(std::string("CURVE server setup: ") + e.what());
  }
}

Status MakeCurveClient(zmq::socket_t& socket, const CurveKeyPair& own, const std::string& server_public) {
  try {
    socket.set(zmq::sockopt::curve_serverkey, server_public);
    socket.set(zmq::sockopt::curve_publickey, own.public_key);
    socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return InvalidArgumentError(std::string("CURVE client setup: ") + e.what());
  }
}

bool IsLocalOnlyEndpoint(const std::string& endpoints) {
  const std::vector<std::string> list = SplitEndpoints(endpoints);
  if (list.empty()) return false;
  for (const std::string& endpoint : list) {
    if (endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0) continue;
    if (endpoint.rfind("tcp://", 0) != 0) return false;
    const std::string rest = endpoint.substr(6);
    if (rest.rfind("127.", 0) != 0 && rest.rfind("localhost:", 0) != 0 && rest.rfind("[::1]:", 0) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace zcrawl
