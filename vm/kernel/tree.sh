# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# vm/kernel/tree.sh - the one owner of the kernel tree. Every script that
# extracts, patches, configures or builds a kernel sources this:
#
#   . "$top/vm/kernel/tree.sh"
#
# and asks for a kernel by its variant's name (the table below); nothing
# else in the project exports KBUILD_* or CCACHE_*, runs git am or
# merge_config.sh. vm/kernel/kernel-tree is its command line.
#
# The tree
#   k_tree                  build/linux: linux-source-6.12 extracted and
#                           committed as the tag "base" (once)
#   k_version               the Debian version the tree came from
#   k_series_files          kernel-patches/' patches, cover letter left out
#   k_apply                 build/linux at kernel-patches/ (branch "series")
#   k_worktree DIR REV      a checkout of REV at DIR, sharing build/linux's
#                           objects
#   k_am DIR PATCH...       git am PATCHes onto DIR's HEAD, the project's
#                           identity and fixed dates; on failure aborted
# Configuring and building
#   k_configure SRC OBJ MAKEVARS FRAGMENT...
#                           tinyconfig + the fragments in OBJ, every option
#                           checked (kept while the fragments are unchanged);
#                           with K_LOOSE=1 not checked: for a walk through
#                           the series, where an early patch's tree lacks
#                           options the fragments name
#   k_verify_config CONFIG FRAGMENT...
#   k_make SRC OBJ ARGS...  make in SRC with O=OBJ: ccache (gcc, or clang
#                           with LLVM=1), fixed timestamps, -j$JOBS,
#                           nice -n $NICE
#   k_make_logged LOG SRC OBJ ARGS...
#                           k_make with its output in LOG, and a progress
#                           line while it runs
# Variants: the kernels of the project, declared once (k_table)
#   k_variants              their names
#   k_variant NAME          sets K_SRC K_OBJ K_IMAGE K_FRAGS K_VARS
#                           K_TARGETS K_PATCH K_BEFORE K_TREE (no work)
#   k_prepare               the tree of the variant k_variant chose, patched
#                           as its row says (redone only when that changed)
#   k_objdir NAME           the variant's object directory
#   k_clean                 remove every variant's object directory and image
#   k_build NAME            prepare its tree, configure, build, copy its
#                           image to build/bzImage-NAME (patched:
#                           build/bzImage)
# Debian packages (make deb): the series' tree with Debian's own config
#   k_series_version        the series' version (kernel-patches/' cover letter)
#   k_deb_build FLAVOUR [LSMOD]
#                           linux-image/-headers .debs of the series' tree
#                           configured with Debian's config for FLAVOUR
#                           (linux-config-6.12) and the changes recorded in
#                           vm/kernel/deb/FLAVOUR.diffconfig; with LSMOD (an
#                           lsmod listing) trimmed by localmodconfig to the
#                           modules that machine uses. The packages end up
#                           in build/deb/FLAVOUR (trimmed: FLAVOUR-local).
#
# Every build is out of tree (O= a directory inside the source tree, so
# that paths are relative and ccache hits across trees), with ccache and a
# fixed KBUILD_BUILD_TIMESTAMP, and incremental: nothing is re-extracted or
# rebuilt from scratch when a patch changes. Full kbuild output goes to a
# log in the object directory; on failure its error lines are shown.

k_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
k_build_dir=$k_top/build
k_src=$k_build_dir/linux
k_tarball=/usr/src/linux-source-6.12.tar.xz
k_jobs=${JOBS:-$(nproc)}
# shellcheck disable=SC2054 # CCACHE_SLOPPINESS is one value with commas
k_env=(
	KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	KBUILD_BUILD_USER=perfns KBUILD_BUILD_HOST=vm
	CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
	CCACHE_BASEDIR="$k_build_dir" CCACHE_NOHASHDIR=1
	CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
)
# The identity and dates commits in the tree's checkouts are made with:
# the same patches give the same commits anywhere.
k_git_id=(-c user.name="Perfns Developers" -c user.email=perfns@example.org
	-c commit.gpgsign=false)

k_say() { printf '[kernel] %s\n' "$*"; }
k_die() { printf 'vm/kernel: %s\n' "$*" >&2; exit 1; }
k_git() { git -C "$k_src" "${k_git_id[@]}" "$@"; }

# --- the variants --------------------------------------------------------
#
# name: build/bzImage-NAME (patched: build/bzImage)
# tree: series      build/linux at kernel-patches/
#       base        build/linux-baseline, the pristine tree
#       series+     build/linux-NAME: the series (up to "before", if
#                   given) with "patch" applied ("-": none)
#       mainline    build/linux-mainline-base: Debian's level 3 reverted
#                   (the series' Debian-only revert)
#       mainline+   build/linux-mainline: that, then the series' mainline
#                   form (every patch but the Debian-only ones)
# object: the object directory, inside the tree
# fragments: tinyconfig + these, in order, from vm/kernel/NAME.config; an
#       element with "=" is an option of its own (CONFIG_X=n: not set)
# make: variables for make, "-" for none; targets: comma-separated
# patch: for tree series+, the patch of the project applied onto the series,
#       "-" for none
# before: for tree series+, the series up to the patch before the one whose
#       subject begins with this (one patch of the series must match)
k_table() {
	cat <<'EOF'
# name		tree		object		fragments		make		targets		patch	before
patched		series		o		kernel,series		-		bzImage		-
baseline	base		o		kernel			-		bzImage		-
debug		series		o-debug		kernel,series,debug	-		bzImage		-
debug-baseline	base		o-debug		kernel,debug		-		bzImage		-
kcsan		series		o-kcsan		kernel,series,kcsan	-		bzImage		-
kcsan-planted	series+		o		kernel,series,kcsan	-		bzImage		kernel-patches/test/kcsan-planted.patch
twolookups	series+		o		kernel,series		-		bzImage		kernel-patches/bench/two-lookups.patch
twolinklookups	series+		o		kernel,series		-		bzImage		kernel-patches/bench/two-link-lookups.patch
prereq		series+		o		kernel,CONFIG_PROC_SYSCTL_KUNIT_TEST=y	-	bzImage		-	Revert "security,perf: Allow further restriction of perf_event_open"
mainline	mainline+	o		kernel,series		-		bzImage		-
mainline-base	mainline	o		kernel			-		bzImage		-
nosysctl	series		o-nosysctl	matrix,series,CONFIG_PROC_SYSCTL=n,CONFIG_SYSCTL=n,CONFIG_PERF_PARANOID_KUNIT_TEST=n,CONFIG_PROC_SYSCTL_KUNIT_TEST=n	-	bzImage	-
nouserns	series		o-nouserns	matrix,series,CONFIG_USER_NS=n	-	bzImage		-
kunit-module	series		o-kunit-module	kernel,series,CONFIG_MODULES=y,CONFIG_MODULE_UNLOAD=y,CONFIG_KUNIT=m,CONFIG_PERF_PARANOID_KUNIT_TEST=m,CONFIG_PROC_SYSCTL_KUNIT_TEST=n	-	bzImage,modules	-
clang		series		o-clang		matrix,series		LLVM=1		bzImage		-
i386		series		o-i386		matrix,series,CONFIG_64BIT=n	ARCH=i386	bzImage	-
EOF
}
# What the variants are for:
#   patched, baseline      the test kernel and the same tree without the series
#   debug, debug-baseline  KASAN, lockdep, kmemleak... (vm/check/check-all
#                          --debug; the soak's control: vm/soak/soak)
#   kcsan, kcsan-planted   KCSAN, and its positive control with a race
#                          planted in the series (vm/check/kcsan)
#   twolookups, twolinklookups
#                          the series against variants of it
#                          (vm/bench/bench variant)
#   prereq                 the unpatched tree with the series' get_links()
#                          patches only (its first two; their KUnit test,
#                          not the series' other one, which is not there
#                          yet), the bench's third kernel: the feature's
#                          own cost (vm/bench/bench)
#   mainline, mainline-base  the series' mainline form (vm/check/mainline)
#   nosysctl, nouserns, kunit-module, clang, i386
#                          the configurations of vm/check/matrix

k_variants() {
	k_table | awk '!/^#/ { print $1 }'
}

k_variant() {
	local line name tree obj frags vars targets patch before
	line=$(k_table | awk -F'\t+' -v n="$1" '$1 == n')
	[ -n "$line" ] || return 1
	IFS=$'\t' read -r name tree obj frags vars targets patch before <<<"$(tr -s '\t' <<<"$line")"
	K_TREE=$tree K_PATCH='' K_BEFORE=$before
	[ "$patch" = - ] || K_PATCH=$k_top/$patch
	K_VARS=()
	[ "$vars" = - ] || read -ra K_VARS <<<"$vars"
	IFS=, read -ra K_TARGETS <<<"$targets"
	IFS=, read -ra K_FRAGS <<<"$frags"
	case $tree in
	series) K_SRC=$k_src ;;
	base) K_SRC=$k_build_dir/linux-baseline ;;
	series+) K_SRC=$k_build_dir/linux-$name ;;
	mainline) K_SRC=$k_build_dir/linux-mainline-base ;;
	mainline+) K_SRC=$k_build_dir/linux-mainline ;;
	*) k_die "variant $name: unknown tree '$tree'" ;;
	esac
	K_OBJ=$K_SRC/$obj
	K_IMAGE=$k_build_dir/bzImage-$name
	[ "$name" != patched ] || K_IMAGE=$k_build_dir/bzImage
}

k_objdir() {
	k_variant "$1" || k_die "no variant '$1' (vm/kernel/kernel-tree variants)"
	echo "$K_OBJ"
}

# k_clean: every variant's object directory and image, and the series
# check's per-patch images; the extracted trees and their stamps stay.
k_clean() {
	local name
	for name in $(k_variants); do
		k_variant "$name"
		rm -rf "$K_OBJ" "$K_IMAGE"
	done
	rm -rf "$k_build_dir/series-check"
}

# --- the tree ------------------------------------------------------------

k_version() {
	[ -f "$k_build_dir/source-version" ] || k_die "no tree yet: run 'make kernel'"
	cat "$k_build_dir/source-version"
}

k_tree() {
	if [ -d "$k_src/.git" ] && k_git rev-parse -q --verify refs/tags/base >/dev/null; then
		return 0
	fi
	[ -f "$k_tarball" ] || k_die "$k_tarball missing: run 'make deps' (apt-get install linux-source-6.12)"
	rm -rf "$k_src" "$k_build_dir/linux-source-6.12"
	mkdir -p "$k_build_dir"
	local ver
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	k_say "extracting $k_tarball (linux-source-6.12 $ver)"
	tar -C "$k_build_dir" -xf "$k_tarball"
	mv "$k_build_dir/linux-source-6.12" "$k_src"
	k_say "recording the pristine tree as the base commit"
	git -C "$k_src" init -q -b series
	# Debian's .gitignore ignores every top-level entry: force-add.
	k_git add -f -A
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		k_git commit -q -m "linux-source-6.12 $ver (Debian, as installed by apt)"
	k_git tag base
	echo "linux-source-6.12 $ver" > "$k_build_dir/source-version"
	rm -f "$k_build_dir/series-stamp"
}

k_series_files() {
	local p
	for p in "$k_top"/kernel-patches/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -f "$p" ] && [[ $p != */0000-* ]] && echo "$p"
	done
	return 0
}

k_patches_hash() {
	cat "$k_top"/kernel-patches/*.patch 2>/dev/null | sha1sum | cut -d' ' -f1
}

k_worktree() {
	local dir=$1 rev=$2
	git -C "$k_src" worktree prune
	if [ ! -d "$dir" ]; then
		git -C "$k_src" worktree add -q --detach "$dir" "$rev"
	else
		git -C "$dir" am --abort >/dev/null 2>&1 || true
		git -C "$dir" checkout -q --detach -f "$rev"
	fi
}

k_am() {
	local dir=$1
	shift
	[ $# -gt 0 ] || return 0
	if ! GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		git -C "$dir" "${k_git_id[@]}" am -q --keep-cr "$@"; then
		git -C "$dir" am --abort >/dev/null 2>&1 || true
		return 1
	fi
}

k_apply() {
	k_tree
	local want have_hash have_head head
	want=$(k_patches_hash)
	head=$(k_git rev-parse HEAD)
	if [ -f "$k_build_dir/series-stamp" ]; then
		read -r have_hash have_head < "$k_build_dir/series-stamp"
	else
		have_hash=none have_head=$(k_git rev-parse base)
	fi
	[ "$want" != "$have_hash" ] || return 0
	if [ "$head" != "$have_head" ]; then
		k_die "build/linux has commits that are not in kernel-patches/, and kernel-patches/ changed too. Run 'make export-patches' to keep the tree's commits, or 'git -C build/linux reset --hard base && rm build/series-stamp' to drop them."
	fi
	if [ -n "$(k_git status --porcelain --untracked-files=no)" ]; then
		k_die "build/linux has uncommitted changes; commit or stash them first"
	fi
	local patches
	mapfile -t patches < <(k_series_files)
	k_say "applying ${#patches[@]} patches from kernel-patches/ with git am"
	k_git checkout -q -B series base
	k_am "$k_src" "${patches[@]}" ||
		k_die "git am failed: the series does not apply to the base"
	k_restore_cover
	echo "$want $(k_git rev-parse HEAD)" > "$k_build_dir/series-stamp"
}

# The cover letter's subject and text (up to the shortlog) become the
# branch description again, so that export writes the same cover letter.
k_restore_cover() {
	local cover=$k_top/kernel-patches/0000-cover-letter.patch
	[ -f "$cover" ] || return 0
	awk '
		!body && /^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; next }
		!body && subj != "" && /^ / { subj = subj $0; next }
		!body && /^$/ { body = 1; print subj; print ""; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$k_build_dir/cover.txt"
	k_git config branch.series.description "$(cat "$k_build_dir/cover.txt")"
}

# The series' patches marked "Debian only: not for mainline." in their
# message: the revert of Debian's level 3 and the patch that brings it back
k_debian_files() {
	k_series_files | xargs -r grep -l -x 'Debian only: not for mainline.*'
}

# The Debian-only revert: the mainline tree is Debian's with it applied
k_debian_revert() {
	k_debian_files | xargs -r grep -l '^Subject: .*Revert "security,perf' | head -1
}

# The series' mainline form: every patch that is not Debian-only, in order
k_mainline_files() {
	k_series_files | grep -vxF -f <(k_debian_files)
}

# k_prepare: the variant's tree (K_* set by k_variant), patched as it says.
# A tree of its own is redone only when what goes into it changed.
k_prepare() {
	local name=${K_SRC##*/linux-} rev stamp want patches=()
	case $K_TREE in
	series) k_apply; return ;;
	base) k_tree; rev=base ;;
	series+)
		k_apply
		rev=$(k_git rev-parse HEAD)
		if [ -n "$K_BEFORE" ]; then
			# The subject, not the whole message: a later patch may
			# quote it. Exactly one patch must match.
			rev=$(k_git log --format='%H %s' base..HEAD |
				p=$K_BEFORE awk 'index(substr($0, 42), ENVIRON["p"]) == 1 { print $1 }')
			case $rev in
			'') k_die "no patch of the series has a subject beginning '$K_BEFORE'" ;;
			*$'\n'*) k_die "more than one patch of the series has a subject beginning '$K_BEFORE'" ;;
			esac
			rev=$(k_git rev-parse "$rev^")
		fi ;;
	mainline | mainline+)
		k_tree
		patches=("$(k_debian_revert)")
		[ -n "${patches[0]}" ] || k_die "no Debian-only revert in kernel-patches/"
		if [ "$K_TREE" = mainline+ ]; then
			mapfile -t -O 1 patches < <(k_mainline_files)
		fi
		rev=base ;;
	esac
	want=$(printf '%s\n' "$rev" | cat - "${patches[@]}" ${K_PATCH:+"$K_PATCH"} | sha1sum | cut -d' ' -f1)
	stamp=$K_SRC.stamp
	if [ -d "$K_SRC" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	rm -f "$stamp"
	[ ! -d "$K_SRC" ] || git -C "$K_SRC" clean -fdq -e '/o*/'
	k_worktree "$K_SRC" "$rev"
	if [ ${#patches[@]} -gt 0 ]; then
		k_say "applying ${#patches[@]} patches to build/linux-$name with git am"
		k_am "$K_SRC" "${patches[@]}" || k_die "git am failed in build/linux-$name"
	fi
	if [ -n "$K_PATCH" ]; then
		git -C "$K_SRC" apply "$K_PATCH" ||
			k_die "${K_PATCH#"$k_top"/} does not apply to build/linux-$name"
	fi
	echo "$want" > "$stamp"
}

# --- configuring and building --------------------------------------------

# k_fragment_files OBJ FRAGMENT...: the fragment files, an option of its own
# (CONFIG_X=y, CONFIG_X=n) written to OBJ/variant.config.
k_fragment_files() {
	local o=$1 f inline=()
	shift
	for f in "$@"; do
		case $f in
		*=n) inline+=("# ${f%=n} is not set") ;;
		*=*) inline+=("$f") ;;
		/*) echo "$f" ;;
		*) echo "$k_top/vm/kernel/$f.config" ;;
		esac
	done
	if [ ${#inline[@]} -gt 0 ]; then
		mkdir -p "$o"
		printf '%s\n' "# options of this variant (vm/kernel/tree.sh: k_table)" \
			"${inline[@]}" > "$o/variant.config"
		echo "$o/variant.config"
	fi
}

k_configure() {
	local s=$1 o=$2 vars stamp want
	read -ra vars <<<"$3"
	shift 3
	# (Without make variables, the same stamp as the fragments alone.)
	want=$({ [ ${#vars[@]} -eq 0 ] || printf '%s\n' "${vars[*]}"; cat "$@"; } |
		sha1sum | cut -d' ' -f1)
	stamp=$o/.fragment-stamp
	if [ -f "$o/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
		{ [ "${K_LOOSE:-0}" = 1 ] || k_verify_config "$o/.config" "$@" 2>/dev/null; }; then
		return 0
	fi
	k_say "configuring ${o#"$k_build_dir"/}: tinyconfig + $(for f in "$@"; do printf '%s ' "${f#"$k_top"/}"; done)${vars[*]}"
	mkdir -p "$o"
	rm -f "$stamp"
	make -s -C "$s" O="$o" "${vars[@]}" tinyconfig >/dev/null &&
	(cd "$o" && KCONFIG_CONFIG=.config "$s/scripts/kconfig/merge_config.sh" \
		-m -O "$o" .config "$@" >/dev/null) &&
	make -s -C "$s" O="$o" "${vars[@]}" olddefconfig >/dev/null ||
		{ rm -f "$o/.config"; k_die "configuring ${o#"$k_build_dir"/} failed"; }
	[ "${K_LOOSE:-0}" = 1 ] || k_verify_config "$o/.config" "$@" ||
		{ rm -f "$o/.config"; k_die "config options did not survive (see above)"; }
	echo "$want" > "$stamp"
}

# k_verify_config CONFIG FRAGMENT...: every option the fragments ask for
# holds, a later fragment's line for an option replacing an earlier one's
# (as in merge_config.sh).
k_verify_config() {
	local cfg=$1 bad=0 line sym val got
	shift
	local -A want=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; want[${sym%% *}]=n ;;
		esac
	done < <(cat "$@")
	for sym in "${!want[@]}"; do
		val=${want[$sym]}
		got=$(grep -E "^$sym=" "$cfg" | cut -d= -f2- || true)
		[ "$val" != n ] || val=
		if [ "$got" != "$val" ]; then
			printf 'vm/kernel: %s=%s requested, got %s\n' "$sym" "${val:-n}" "${got:-not set}" >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

k_make() {
	local s=$1 o=$2 cc=gcc a
	shift 2
	for a in "$@"; do [ "$a" != LLVM=1 ] || cc=clang; done
	env "${k_env[@]}" nice -n "${NICE:-0}" \
		make -C "$s" O="$o" -j"$k_jobs" CC="ccache $cc" "$@"
}

# k_make_logged LOG SRC OBJ ARGS...: while make runs, a progress line:
# on a terminal one line rewritten every few seconds, otherwise a line a
# minute. A cold build counts the objects made against the last build's
# (about 1,000 for the guest's configurations); an incremental one counts
# the files it compiles again.
k_make_logged() {
	local log=$1 s=$2 o=$3 pid rc=0 t0=$SECONDS total cold=0 n last=0 msg tty=0
	shift 3
	[ -t 1 ] && tty=1
	[ -f "$o/vmlinux" ] || cold=1
	total=$(cat "$o/.objects" 2>/dev/null || echo "${K_OBJECTS_EXPECTED:-~1000}")
	k_make "$s" "$o" "$@" > "$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 3
		kill -0 "$pid" 2>/dev/null || break
		if [ "$cold" = 1 ]; then
			n=$(find "$o" -name '*.o' 2>/dev/null | wc -l)
			msg="$n/$total objects"
		else
			n=$(grep -cE '^  (CC|AS)( \[M\])? ' "$log" || true)
			msg="$n files compiled again"
		fi
		msg="[kernel]   ... $msg, $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
		if [ "$tty" = 1 ]; then
			printf '\r%-72s' "$msg"
		elif [ $((SECONDS - last)) -ge 60 ]; then
			echo "$msg"
			last=$SECONDS
		fi
	done
	[ "$tty" = 0 ] || printf '\r%-72s\r' ''
	wait "$pid" || rc=$?
	[ "$rc" != 0 ] || find "$o" -name '*.o' 2>/dev/null | wc -l > "$o/.objects"
	return "$rc"
}

# k_build NAME: the variant, built.
k_build() {
	local name=$1 lock frags log t0
	k_variant "$name" || k_die "no variant '$name' (vm/kernel/kernel-tree variants)"
	k_prepare
	mapfile -t frags < <(k_fragment_files "$K_OBJ" "${K_FRAGS[@]}")
	# One build at a time per object directory: make check and a bench
	# started together wait for each other instead of breaking both.
	mkdir -p "$K_OBJ"
	exec {lock}> "$K_OBJ.lock"
	flock "$lock"
	k_configure "$K_SRC" "$K_OBJ" "${K_VARS[*]}" "${frags[@]}"
	log=$K_OBJ/build.log
	k_say "building $name in ${K_OBJ#"$k_top"/} (-j$k_jobs, ccache; a cold build takes 7-13 min on 2 cores; log: ${log#"$k_top"/})"
	t0=$SECONDS
	if ! k_make_logged "$log" "$K_SRC" "$K_OBJ" "${K_VARS[@]}" "${K_TARGETS[@]}"; then
		grep -E 'error|Error|undefined' "$log" | head -20 >&2
		tail -5 "$log" >&2
		k_die "$name kernel build failed (full log: ${log#"$k_top"/})"
	fi
	cp "$K_OBJ/arch/x86/boot/bzImage" "$K_IMAGE.tmp" && mv "$K_IMAGE.tmp" "$K_IMAGE"
	k_say "$name ready: ${K_IMAGE#"$k_top"/} ($(k_version), $((SECONDS - t0)) s)"
	exec {lock}>&-
}

# --- Debian packages -------------------------------------------------------
#
# The series' tree (build/linux) built with Debian's configuration for a
# flavour of linux-image-6.12 (the package linux-config-6.12) into a
# linux-image .deb with the kernel's own "make bindeb-pkg". Each object
# directory is a direct subdirectory of the tree (o-deb-FLAVOUR,
# o-deb-FLAVOUR-local), so the packages bindeb-pkg writes to the tree's top
# are moved to build/deb/NAME.tmp and renamed build/deb/NAME when all is
# done: a build that stops halfway leaves no directory a later run takes
# for finished packages. ccache has a cache of its own for these builds
# (K_DEB_CCACHE_DIR, K_DEB_CCACHE_MAXSIZE), so that one of them never
# evicts the minimal kernels' objects; a build stopped midway resumes from
# it.

k_deb_config_dir=${K_DEB_CONFIG_DIR:-/usr/src/linux-config-6.12}
K_DEB_CCACHE_DIR=${K_DEB_CCACHE_DIR:-$HOME/.cache/ccache-deb}
K_DEB_CCACHE_MAXSIZE=${K_DEB_CCACHE_MAXSIZE:-25G}
# Free disk a build needs under build/ and in the cache (the same file
# system here), in GB. Trimmed: measured, 3.3 GB of objects, 24 MB of
# packages and 0.4 GB of cache for 2,774 objects (README.md, "A Debian
# kernel package"), rounded up. Full: measured, 7.2 GB of objects, 45 MB
# of packages and 0.9 GB of cache for 6,892 objects, rounded up.
k_deb_need_full=${K_DEB_NEED_GB:-10}
k_deb_need_local=${K_DEB_NEED_GB:-5}
# The make variables of every make these builds run: no rustc or bindgen
# that happens to be in PATH (Debian's flavours have no Rust; a rustc found
# changes three toolchain symbols of the config, and the config with it).
k_deb_vars=(RUSTC=false BINDGEN=false)

k_series_version() {
	sed -n 's/^Subject: \[PATCH v\([0-9][0-9]*\) 0*\/.*/\1/p' \
		"$k_top/kernel-patches/0000-cover-letter.patch" | head -1
}

# k_ccache DIR MAXSIZE: the ccache k_make uses from now on.
k_ccache() {
	local i
	for i in "${!k_env[@]}"; do
		case ${k_env[$i]} in
		CCACHE_DIR=*) k_env[i]="CCACHE_DIR=$1" ;;
		CCACHE_MAXSIZE=*) k_env[i]="CCACHE_MAXSIZE=$2" ;;
		esac
	done
}

# k_diffconfig_record FILE: the record's diffconfig lines, without their
# reasons ("  # ...") and comment lines, sorted.
k_diffconfig_record() {
	sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]*#.*$//' "$1" | LC_ALL=C sort
}

# k_deb_apply_record CONFIG RECORD: set the values the record's lines end
# with ("+SYM value", " SYM old -> new"); "-SYM" lines (a symbol that
# olddefconfig drops) are checked afterwards, not set.
k_deb_apply_record() {
	local cfg=$1 line sym val args=()
	while IFS= read -r line; do
		case $line in
		+*) sym=${line#+}; val=${sym#* }; sym=${sym%% *} ;;
		" "*) sym=${line# }; sym=${sym%% *}; val=${line##* -> } ;;
		*) continue ;;
		esac
		if [ "$val" = n ]; then
			args+=(--disable "$sym")
		else
			args+=(--set-val "$sym" "$val")
		fi
	done < <(k_diffconfig_record "$2")
	[ ${#args[@]} -eq 0 ] || "$k_src/scripts/config" --file "$cfg" "${args[@]}"
}

# k_deb_configure OBJ FLAVOUR [LSMOD]: Debian's config, the record's
# changes, olddefconfig; every difference from Debian's file must be one the
# record lists (or, trimmed, a module localmodconfig dropped).
k_deb_configure() {
	local o=$1 flavour=$2 lsmod=${3:-} record got extra
	record=$k_top/vm/kernel/deb/$flavour.diffconfig
	[ -f "$record" ] || k_die "no record of the changes to Debian's $flavour config (${record#"$k_top"/})"
	mkdir -p "$o"
	xzcat "$k_deb_config_dir/config.amd64_none_$flavour.xz" > "$o/debian.config" ||
		k_die "cannot read Debian's $flavour config"
	cp "$o/debian.config" "$o/.config"
	k_deb_apply_record "$o/.config" "$record"
	make -s -C "$k_src" O="$o" "${k_deb_vars[@]}" olddefconfig >/dev/null ||
		k_die "olddefconfig failed in ${o#"$k_top"/}"
	got=$("$k_src/scripts/diffconfig" "$o/debian.config" "$o/.config" | LC_ALL=C sort)
	if [ "$got" != "$(k_diffconfig_record "$record")" ]; then
		printf 'vm/kernel: Debian %s config + %s, after olddefconfig:\n' \
			"$flavour" "${record#"$k_top"/}" >&2
		diff <(k_diffconfig_record "$record") <(echo "$got") |
			sed -n 's/^</  recorded, not seen: /p; s/^>/  seen, not recorded: /p' >&2
		k_die "the config differs from Debian's in ways ${record#"$k_top"/} does not list"
	fi
	"$k_src/scripts/diffconfig" "$o/debian.config" "$o/.config" > "$o/debian.diffconfig"
	[ -n "$lsmod" ] || return 0
	# localmodconfig keeps the modules LSMOD lists (and what they need);
	# its questions about options it turns off get their defaults.
	cp "$o/.config" "$o/full.config"
	make -s -C "$k_src" O="$o" "${k_deb_vars[@]}" LSMOD="$lsmod" \
		localmodconfig < <(yes '') >"$o/localmodconfig.log" 2>&1 &&
	make -s -C "$k_src" O="$o" "${k_deb_vars[@]}" olddefconfig >/dev/null ||
		k_die "localmodconfig failed (log: ${o#"$k_top"/}/localmodconfig.log)"
	# The record's changes hold in the trimmed config too.
	extra=$(comm -23 <(k_diffconfig_record "$record" | grep -v '^-') \
		<("$k_src/scripts/diffconfig" "$o/debian.config" "$o/.config" | LC_ALL=C sort))
	[ -z "$extra" ] ||
		k_die "localmodconfig undid recorded changes: $(echo "$extra" | paste -sd';')"
	"$k_src/scripts/diffconfig" "$o/full.config" "$o/.config" > "$o/localmodconfig.diffconfig"
	k_say "trimmed to $(grep -c '^CONFIG_.*=m$' "$o/.config") modules (Debian's: $(grep -c '^CONFIG_.*=m$' "$o/full.config")); the changes: ${o#"$k_top"/}/localmodconfig.diffconfig"
}

# k_deb_list DIR: the packages in DIR with their sizes, as progress lines.
k_deb_list() {
	(cd "$1" && ls -1s --block-size=M ./*.deb | sed 's/^/[kernel]   /')
}

# k_deb_stamp FLAVOUR PKGVERSION LOCALVERSION [LSMOD]: the hash of what
# goes into the packages: the series, Debian's config and the record of
# the changes to it, the module list, the versions and make variables.
k_deb_stamp() {
	{ echo "$2 $3 ${k_deb_vars[*]}"; k_patches_hash
	  cat "$k_top/vm/kernel/deb/$1.diffconfig" \
		"$k_deb_config_dir/config.amd64_none_$1.xz" ${4:+"$4"}; } |
		sha1sum | cut -d' ' -f1
}

# k_deb_build FLAVOUR [LSMOD]
k_deb_build() {
	local flavour=$1 lsmod=${2:-} name o out log lock t0 ver localver pkgver
	local srcver cfgver need avail stamp want f
	name=$flavour
	[ -z "$lsmod" ] || name=$flavour-local
	o=$k_src/o-deb-$name
	out=$k_build_dir/deb/$name
	if [ -n "$lsmod" ]; then
		[ -f "$lsmod" ] || k_die "LSMOD=$lsmod: no such file (the output of lsmod on the machine to build for)"
		lsmod=$(realpath "$lsmod")
		grep -qE '^Module[[:space:]]+Size' "$lsmod" ||
			k_die "LSMOD=$lsmod does not look like the output of lsmod (no 'Module Size Used by' line)"
	fi
	# Debian's configuration comes from the package linux-config-6.12.
	if [ ! -f "$k_deb_config_dir/config.amd64_none_$flavour.xz" ]; then
		k_die "Debian's configuration for $flavour is not there ($k_deb_config_dir/config.amd64_none_$flavour.xz): install the package linux-config-6.12 ('make deps', or apt-get install linux-config-6.12; apt must reach a Debian mirror)"
	fi
	k_apply
	srcver=$(k_version); srcver=${srcver#linux-source-6.12 }
	cfgver=$(dpkg-query -W -f='${Version}' linux-config-6.12 2>/dev/null || echo unknown)
	[ "$cfgver" = "$srcver" ] ||
		k_say "note: linux-config-6.12 is $cfgver, the tree is linux-source-6.12 $srcver (README.md: after a Debian update)"
	ver=$(k_series_version)
	[ -n "$ver" ] || k_die "no series version in kernel-patches/0000-cover-letter.patch"
	localver=-perfns-v$ver
	[ -z "$lsmod" ] || localver+=-local
	pkgver=$srcver+perfns.v$ver
	# What goes into the packages: when it is unchanged, nothing to do.
	want=$(k_deb_stamp "$flavour" "$pkgver" "$localver" "$lsmod")
	stamp=$out/.stamp
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		k_say "build/deb/$name is up to date:"
		k_deb_list "$out"
		return 0
	fi
	# Disk first: the object directory, the packages and the cache.
	need=$k_deb_need_full
	[ -z "$lsmod" ] || need=$k_deb_need_local
	mkdir -p "$k_build_dir/deb"
	avail=$(df -P -BG "$k_build_dir" | awk 'NR == 2 { sub(/G$/, "", $4); print $4 }')
	if [ -d "$o" ]; then
		# What is there already counts towards it.
		need=$(( need - $(du -sBG "$o" | cut -f1 | tr -d G) ))
	fi
	if [ "$avail" -lt "$need" ]; then
		k_die "not enough free disk for the $name build: $avail GB free on $(df -P "$k_build_dir" | awk 'NR == 2 { print $6 }'), about $need GB more needed (the object directory and packages; ccache in $K_DEB_CCACHE_DIR grows to $K_DEB_CCACHE_MAXSIZE)"
	fi
	exec {lock}> "$k_src/deb.lock"
	flock "$lock"
	# Another make deb may have built the same packages while this one
	# waited for the lock.
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		exec {lock}>&-
		k_say "build/deb/$name is up to date (built while this run waited):"
		k_deb_list "$out"
		return 0
	fi
	rm -rf "$out" "$out.tmp"
	k_deb_configure "$o" "$flavour" "$lsmod"
	k_ccache "$K_DEB_CCACHE_DIR" "$K_DEB_CCACHE_MAXSIZE"
	mkdir -p "$K_DEB_CCACHE_DIR"
	CCACHE_DIR=$K_DEB_CCACHE_DIR ccache -M "$K_DEB_CCACHE_MAXSIZE" >/dev/null
	# Leftovers of a build that stopped before its packages were moved.
	rm -f "$k_src"/*_"$pkgver"_*.deb "$k_src"/linux-upstream_"$pkgver"_*
	log=$o/build.log
	k_say "building Debian packages $name: linux-image-${srcver%%-*}$localver (${srcver%%-*} ${srcver#*-}, series v$ver) in ${o#"$k_top"/} (-j$k_jobs, nice -n ${NICE:-0}, ccache in $K_DEB_CCACHE_DIR; log: ${log#"$k_top"/})"
	t0=$SECONDS
	if ! (
		export KDEB_PKGVERSION=$pkgver KDEB_CHANGELOG_DIST=bookworm \
			DEBFULLNAME="Perfns Developers" DEBEMAIL=perfns@example.org \
			DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg
		# The progress line counts objects against the last build's.
		K_OBJECTS_EXPECTED='?'
		k_make_logged "$log" "$k_src" "$o" "${k_deb_vars[@]}" \
			LOCALVERSION="$localver" bindeb-pkg
	); then
		grep -E 'error|Error|undefined' "$log" | head -20 >&2
		tail -5 "$log" >&2
		k_die "the $name package build failed (full log: ${log#"$k_top"/})"
	fi
	# The key modules are signed with stays in the object directory:
	# readable by root only (docs/admin-guide.md, "Installing on Debian").
	chmod 600 "$o/certs/signing_key.pem" 2>/dev/null || true
	mkdir -p "$out.tmp"
	for f in "$k_src"/*_"$pkgver"_*.deb "$k_src"/linux-upstream_"$pkgver"_*; do
		[ -e "$f" ] && mv "$f" "$out.tmp/"
	done
	ls "$out.tmp"/linux-image-*.deb >/dev/null 2>&1 ||
		k_die "bindeb-pkg made no linux-image package (log: ${log#"$k_top"/})"
	cp "$o/.config" "$out.tmp/config"
	cp "$o/debian.diffconfig" "$out.tmp/debian.diffconfig"
	[ -z "$lsmod" ] || cp "$o/localmodconfig.diffconfig" "$out.tmp/localmodconfig.diffconfig"
	echo "$want" > "$out.tmp/.stamp"
	mv "$out.tmp" "$out"
	exec {lock}>&-
	k_say "$name packages in build/deb/$name ($((SECONDS - t0)) s; object directory $(du -sh "$o" | cut -f1)):"
	k_deb_list "$out"
}
