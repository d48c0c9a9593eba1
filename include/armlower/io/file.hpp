/// @file armlower/io/file.hpp
/// Whole-file reading and all-or-nothing file writing for armlower's hosted front ends (the
/// `.tflite` importer, `.npy` I/O and the `armlower` tool). Hosted only (POSIX; Linux
/// `O_TMPFILE` when available).
///
/// Output-file semantics (`write_files`, used by `serialize::write_file` and the tool):
/// - A symbolic link is followed: the file it names (finally, after every level) is written,
///   the link itself stays a link. A dangling link creates its target.
/// - A regular file is replaced atomically: the data goes to a temporary file in the target's
///   directory, which is then renamed over the target, so the target is never partially
///   written. The replacement keeps the existing file's permission bits (and, when the process
///   may, its owner and group); a new file gets 0666 minus the umask.
/// - A special file that exists (character or block device, FIFO, socket: `/dev/null`,
///   `/dev/stdout`) is written through, in place, never replaced; this cannot be atomic.
/// - A directory is refused.
/// - The temporary file is an unnamed Linux `O_TMPFILE` inode, which cannot outlive the
///   process; it gets a name (`.<target>.tmp<random>`) only for the instant between `linkat`
///   and `rename`. Where `O_TMPFILE` is not available the named temporary is created at once.
///   Every named temporary is registered, and `remove_pending_temporaries()` (async-signal
///   safe) deletes them: the `armlower` tool calls it from its SIGINT/SIGTERM/SIGHUP handler.
/// - Several files at once are all or nothing: every temporary is written (and every special
///   file written through) before any target is renamed, so a failure before the renames leaves
///   every target untouched. Only a `rename` itself failing (a concurrent change to the
///   directory) can leave some targets replaced and others not.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <armlower/core/error.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <system_error>
#include <vector>

namespace armlower::io {

/// An `errc::io` error about the file `p` (its `where().file`); `message` is the problem.
[[nodiscard]] inline error io_failure(const std::filesystem::path& p, std::string message) {
  return error(errc::io, location{p.string(), {}, -1, -1, {}, {}}, std::move(message));
}

/// Reads the whole file `p` into memory.
/// Errors (`errc::io`, `where().file` = `p`): the file does not exist, is a directory, or cannot
/// be read.
[[nodiscard]] inline expected<std::vector<std::uint8_t>> read_bytes(const std::filesystem::path& p) {
  std::error_code ec;
  const auto st = std::filesystem::status(p, ec);
  if (ec || !std::filesystem::exists(st)) return io_failure(p, "no such file");
  if (std::filesystem::is_directory(st)) return io_failure(p, "is a directory, not a file");
  std::ifstream in(p, std::ios::binary);
  if (!in) return io_failure(p, "cannot open for reading");
  std::vector<std::uint8_t> bytes;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) return io_failure(p, "cannot determine the file size");
  in.seekg(0, std::ios::beg);
  bytes.resize(static_cast<std::size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size)) return io_failure(p, "read error");
  return bytes;
}

/// One file to write with `write_files`: its path and its complete contents.
struct output_file {
  std::filesystem::path path;
  std::span<const std::uint8_t> bytes;
};

namespace detail {

/// Named temporaries that exist right now (async-signal-safe registry: fixed slots, no heap).
struct pending_temp {
  std::atomic<int> state{0};  ///< 0 free, 1 being filled, 2 armed (path valid)
  char path[4096] = {};
};
inline std::array<pending_temp, 64> pending_temps{};

/// Registers `p`; returns its slot, or -1 when every slot is taken or the path is too long
/// (the temporary then still works, it is only not removed by a signal).
inline int register_temp(const std::filesystem::path& p) {
  const std::string s = p.string();
  if (s.size() >= sizeof(pending_temp::path)) return -1;
  for (std::size_t i = 0; i < pending_temps.size(); ++i) {
    int expect = 0;
    if (pending_temps[i].state.compare_exchange_strong(expect, 1)) {
      std::memcpy(pending_temps[i].path, s.c_str(), s.size() + 1);
      pending_temps[i].state.store(2);
      return static_cast<int>(i);
    }
  }
  return -1;
}
inline void unregister_temp(int slot) {
  if (slot >= 0) pending_temps[static_cast<std::size_t>(slot)].state.store(0);
}

/// `p` with every symbolic link followed (relative link targets resolved against the link's
/// directory); a dangling link yields the path it names. Errors: an unreadable link, more than
/// 40 levels.
inline expected<std::filesystem::path> follow_links(std::filesystem::path p) {
  namespace fs = std::filesystem;
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec)) || ec) return p;
    const auto t = fs::read_symlink(p, ec);
    if (ec) return io_failure(p, "cannot read the symbolic link: " + ec.message());
    p = t.is_absolute() ? t : p.parent_path() / t;
  }
  return io_failure(p, "too many levels of symbolic links");
}

/// Writes all of `b` to `fd`. Returns 0 or the errno.
inline int write_all(int fd, std::span<const std::uint8_t> b) {
  std::size_t done = 0;
  while (done < b.size()) {
    const auto n = ::write(fd, b.data() + done, b.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// One output being written: where it goes and its temporary.
struct staged {
  std::filesystem::path shown;   ///< the path as the caller gave it (for messages)
  std::filesystem::path target;  ///< after following links
  std::filesystem::path named;   ///< named temporary (empty while only an O_TMPFILE fd exists)
  std::span<const std::uint8_t> bytes;
  int fd = -1;
  int slot = -1;
  bool special = false;  ///< written through in place
  bool keep_mode = false;
  struct stat old {};

  staged() = default;
  staged(const staged&) = delete;
  staged& operator=(const staged&) = delete;
  staged(staged&& o) noexcept { *this = std::move(o); }
  staged& operator=(staged&& o) noexcept {
    shown = std::move(o.shown), target = std::move(o.target), named = std::move(o.named);
    bytes = o.bytes, fd = o.fd, slot = o.slot, special = o.special, keep_mode = o.keep_mode, old = o.old;
    o.fd = -1, o.slot = -1, o.named.clear();
    return *this;
  }
  ~staged() { discard(); }

  /// Removes the temporary (if any) and closes it.
  void discard() noexcept {
    if (fd >= 0) ::close(fd), fd = -1;
    if (!named.empty()) ::unlink(named.c_str()), named.clear();
    unregister_temp(slot), slot = -1;
  }

  /// An `errc::io` error about this output (`where().file` = the path as the caller gave it).
  [[nodiscard]] error fail(std::string message) const { return io_failure(shown, std::move(message)); }

  /// A new named temporary beside the target (O_CREAT|O_EXCL), registered.
  [[nodiscard]] expected<void> create_named(mode_t mode) {
    namespace fs = std::filesystem;
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::random_device rd;
    for (int attempt = 0; attempt < 16; ++attempt) {
      const fs::path t = dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd()));
      slot = register_temp(t);
      const int f = ::open(t.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
      if (f >= 0) {
        fd = f, named = t;
        return {};
      }
      const int e = errno;
      unregister_temp(slot), slot = -1;
      if (e != EEXIST) return fail("cannot create a temporary file in '" + dir.string() + "': " + std::strerror(e));
    }
    return fail("cannot create a temporary file in '" + dir.string() + "': name collisions");
  }

  /// Opens the temporary (O_TMPFILE when possible) and writes the bytes.
  [[nodiscard]] expected<void> stage() {
    namespace fs = std::filesystem;
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const mode_t mode = keep_mode ? (old.st_mode & 07777) : 0666;
#if defined(__linux__) && defined(O_TMPFILE)
    fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      return fail("cannot create a temporary file in '" + dir.string() + "': " + std::strerror(errno));
#endif
    if (fd < 0)
      if (auto c = create_named(mode); !c) return c;
    if (keep_mode) {
      (void)::fchown(fd, old.st_uid, old.st_gid);  // only the owner or root may; the mode is what matters
      if (::fchmod(fd, old.st_mode & 07777) != 0)
        return fail("cannot set the mode of a temporary file in '" + dir.string() + "': " + std::strerror(errno));
    }
    if (const int e = write_all(fd, bytes)) return fail("cannot write '" + shown.string() + "': " + std::strerror(e));
    return {};
  }

  /// Gives an unnamed temporary its (registered) name beside the target.
  [[nodiscard]] expected<void> name_it() {
    if (!named.empty()) return {};
    namespace fs = std::filesystem;
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::random_device rd;
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    for (int attempt = 0; attempt < 16; ++attempt) {
      const fs::path t = dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd()));
      slot = register_temp(t);
      int r = ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, t.c_str(), AT_SYMLINK_FOLLOW);
#ifdef AT_EMPTY_PATH
      if (r != 0 && errno != EEXIST) r = ::linkat(fd, "", AT_FDCWD, t.c_str(), AT_EMPTY_PATH);
#endif
      if (r == 0) {
        named = t;
        return {};
      }
      const int e = errno;
      unregister_temp(slot), slot = -1;
      if (e == EEXIST) continue;
      // No /proc and no CAP_DAC_READ_SEARCH: write the data again to a named temporary.
      ::close(fd), fd = -1;
      if (auto c = create_named(keep_mode ? (old.st_mode & 07777) : 0666); !c) return c;
      if (keep_mode) {
        (void)::fchown(fd, old.st_uid, old.st_gid);
        (void)::fchmod(fd, old.st_mode & 07777);
      }
      if (const int w = write_all(fd, bytes)) return fail("cannot write '" + shown.string() + "': " + std::strerror(w));
      return {};
    }
    return fail("cannot name a temporary file in '" + dir.string() + "': name collisions");
  }
};

}  // namespace detail

/// Deletes every named temporary file that `write_files` has created and not yet renamed.
/// Async-signal-safe (only `unlink`): call it from a SIGINT/SIGTERM handler before exiting.
inline void remove_pending_temporaries() noexcept {
  for (auto& t : detail::pending_temps)
    if (t.state.load() == 2) ::unlink(t.path);
}

/// True when `a` and `b` name the same file: the same inode when both exist, else the same
/// absolute, normalized path after following symbolic links.
[[nodiscard]] inline bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  if (fs::exists(a, ec1) && fs::exists(b, ec2)) {
    std::error_code ec;
    const bool eq = fs::equivalent(a, b, ec);
    if (!ec) return eq;
  }
  const auto norm = [](const fs::path& f) {
    std::error_code ec;
    auto abs = fs::absolute(f, ec);
    return fs::weakly_canonical(ec ? f : abs, ec).lexically_normal();
  };
  const auto fa = detail::follow_links(a), fb = detail::follow_links(b);
  return fa && fb && norm(*fa) == norm(*fb);
}

/// Writes every file of `files` with the semantics in this header's comment: all or nothing,
/// symbolic links followed, modes kept, special files written through, directories refused.
/// Errors (`errc::io`, `where().file` = the path as given, one-line message): a path given
/// twice, a directory, a missing directory ("cannot create a temporary file in '<dir>': No such
/// file or directory"), a write error (disk full, permissions), a failed rename.
[[nodiscard]] inline expected<void> write_files(std::span<const output_file> files) {
  namespace fs = std::filesystem;
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (same_file(files[i].path, files[k].path))
        return io_failure(files[i].path, "the same output file is given twice");
  std::vector<detail::staged> st(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto& s = st[i];
    s.shown = files[i].path;
    s.bytes = files[i].bytes;
    auto target = detail::follow_links(files[i].path);
    if (!target) return std::move(target).error();
    s.target = std::move(*target);
    if (::stat(s.target.c_str(), &s.old) == 0) {
      if (S_ISDIR(s.old.st_mode)) return s.fail("is a directory, not a file");
      s.special = !S_ISREG(s.old.st_mode);
      s.keep_mode = !s.special;
    }
  }
  // Stage: every regular target's temporary is written before any special file is touched.
  for (auto& s : st)
    if (!s.special)
      if (auto r = s.stage(); !r) return r;
  for (auto& s : st)
    if (!s.special)
      if (auto r = s.name_it(); !r) return r;
  for (auto& s : st) {
    if (!s.special) continue;
    const int f = ::open(s.target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return s.fail("cannot open '" + s.shown.string() + "' for writing: " + std::strerror(errno));
    const int e = detail::write_all(f, s.bytes);
    ::close(f);
    if (e) return s.fail("cannot write '" + s.shown.string() + "': " + std::strerror(e));
  }
  // Commit.
  for (auto& s : st) {
    if (s.special) continue;
    if (::close(s.fd) != 0) {
      s.fd = -1;
      return s.fail("cannot write '" + s.shown.string() + "': " + std::strerror(errno));
    }
    s.fd = -1;
    if (::rename(s.named.c_str(), s.target.c_str()) != 0)
      return s.fail("cannot rename '" + s.named.string() + "' to '" + s.target.string() + "': " + std::strerror(errno));
    s.named.clear();
    detail::unregister_temp(s.slot), s.slot = -1;
  }
  return {};
}

/// `write_files` for one file.
[[nodiscard]] inline expected<void> write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  const output_file f{path, bytes};
  return write_files(std::span<const output_file>(&f, 1));
}

}  // namespace armlower::io
