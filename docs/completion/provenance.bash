# bash completion for provenance (installed by make install)
# Files and directories: one word per name (a name with spaces stays whole);
# bash-completion's _filedir and _pids when it is loaded, else the same by hand.
_provenance_files() {	# [-d]: directories only
	if declare -F _filedir >/dev/null; then
		_filedir "$@"
		return
	fi
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	if [ "$1" = -d ]; then
		COMPREPLY+=($(compgen -d -- "$cur"))
	else
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
}
_provenance_pids() {
	if declare -F _pids >/dev/null; then
		_pids
		return
	fi
	COMPREPLY=($(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur"))
}
_provenance() {
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-c|--cache) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--cache|--spool-dir) _provenance_files -d; return ;;
	--sysroot|--mapping|--exe|--rpm-spec) _provenance_files; return ;;
	--pid) _provenance_pids; return ;;
	--by) COMPREPLY=($(compgen -W "day week version host image" -- "$cur")); return ;;
	--format)
		case $cmd in
		resolve|env|triage|show) COMPREPLY=($(compgen -W "text markdown json" -- "$cur")) ;;
		query) COMPREPLY=($(compgen -W "table csv json" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
		esac
		return ;;
	-c) COMPREPLY=($(compgen -W "fetch.timeout= fetch.connectTimeout= fetch.hostDownFor= fetch.stallTimeout= fetch.retries= fetch.maxSize= fetch.trustSystemUrls= debuginfod.timeout= debuginfod.totalTimeout= core.maxSize= import.maxBytes= import.maxEntries= sources.debianBaseUrl= sources.debianSecurityBaseUrl=" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
	esac
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "analyze resolve env fixcheck cache import show prune mark triage query collect serve --help --version -c --cache" -- "$cur"))
		return
	fi
	case $cmd in
	analyze) COMPREPLY=($(compgen -W "--exe --sysroot --format --locals --no-python --pid --help" -- "$cur")) ;;
	resolve) COMPREPLY=($(compgen -W "--exe --sysroot --host-packages --format --mapping --offline --context --fix --component --include-prereleases --all-threads --all-components --locals --pid --store --host --time --no-suspects --help" -- "$cur")) ;;
	env) COMPREPLY=($(compgen -W "--sysroot --format --mapping --offline --fetch --help" -- "$cur")) ;;
	fixcheck) COMPREPLY=($(compgen -W "--repo --at --one-fix --debian-source --rpm-spec --component --sysroot --mapping --offline --include-prereleases --format --help" -- "$cur")) ;;
	cache) COMPREPLY=($(compgen -W "stats clear prune --help" -- "$cur")) ;;
	import) COMPREPLY=($(compgen -W "--store --host --time --journal --since --directory --help" -- "$cur")) ;;
	show) COMPREPLY=($(compgen -W "--format --store --help" -- "$cur")) ;;
	prune) COMPREPLY=($(compgen -W "--older-than --keep-per-signature --dry-run --store --help" -- "$cur")) ;;
	triage) COMPREPLY=($(compgen -W "--since --until --host --signature --component --image --by --runs --frames --format --store --help" -- "$cur")) ;;
	mark) COMPREPLY=($(compgen -W "--fixed-in --component --bug --note --store --help" -- "$cur")) ;;
	query) COMPREPLY=($(compgen -W "--format --max-rows --timeout --store --help" -- "$cur")) ;;
	collect) COMPREPLY=($(compgen -W "--install --persist --uninstall --flush --store --spool-dir --handler --help" -- "$cur")) ;;
	serve) COMPREPLY=($(compgen -W "--listen --store --timeout --help" -- "$cur")) ;;
	esac
	if [[ $cur != -* ]] && [ "$cmd" != cache ] && [ "$cmd" != env ] && [ "$cmd" != triage ] && [ "$cmd" != query ] && [ "$cmd" != collect ] && [ "$cmd" != serve ] && [ "$cmd" != prune ] && [ "$cmd" != mark ]; then
		_provenance_files
	fi
}
complete -F _provenance provenance
