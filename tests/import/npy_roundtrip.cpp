// Reads a .npy with armlower::io and writes it back: `npy_roundtrip in.npy out.npy`.
// Exit 0 on success, 1 with one error line on stderr otherwise (driven by npy_numpy_check.py).
#include <armlower/io/npy.hpp>

#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: npy_roundtrip in.npy out.npy\n";
    return 2;
  }
  const auto a = armlower::io::read_npy(argv[1]);
  if (!a) {
    std::cerr << "error: " << a.error().line() << "\n";
    return 1;
  }
  const auto bytes = armlower::io::format_npy(*a);
  if (!bytes) {
    std::cerr << "error: " << bytes.error().line() << "\n";
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary).write(reinterpret_cast<const char*>(bytes->data()),
                                                 static_cast<std::streamsize>(bytes->size()));
  std::cout << armlower::dtype::name(a->type) << " rank " << a->shape.size() << "\n";
  return 0;
}
