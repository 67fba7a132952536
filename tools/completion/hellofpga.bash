# SPDX-License-Identifier: MIT
# bash completion for hellofpga(1): the commands, each command's long
# options, device specs after -d (emu, emu:N, the /dev/hellofpgaN cards
# there are) and the commands after "help".  Installed as
# DATADIR/bash-completion/completions/hellofpga.
#
# The option lists are kept here by hand; tests/tools/completion_test.sh
# compares them with what each "hellofpga COMMAND --help" prints, so they
# cannot drift.  Every command takes --help, also where its help does not
# print it.

_hellofpga_commands="info write read reg events stream demo bench test doctor version help"

declare -gA _hellofpga_opts=(
	[-]="--device --help --version"
	[info]="--help"
	[write]="--address --channel --size --offset --help"
	[read]="--address --channel --size --help"
	[reg]="--help"
	[events]="--irq --all --count --timeout --json --raise --help"
	[stream]="--channel --frames --duration --frame-size --records --buffers
		--buffer-size --gpu --rate --drop --raw --save --timeout
		--json --help"
	[demo]="--size --rounds --help"
	[bench]="--quick --all --sections --min --max --budget --iters
		--frame-size --buffers --frames-time --pin-max --soak --interval
		--soak-size --repeats --seed --paths --channel --address --json --csv
		--markdown --plot-dir --plot --help"
	[test]="--soak --interval --size --channel --json --only --list --help"
	[doctor]="--root --json --print-env --help"
	[version]="--help"
	[help]="--help"
)

# the directory the card nodes are in (tests point it elsewhere)
_hellofpga_dev=${_hellofpga_dev:-/dev}

# _hellofpga_devices: emu, emu:0..3 and each /dev/hellofpgaN card.
_hellofpga_devices() {
	local n

	echo emu emu:0 emu:1 emu:2 emu:3
	for n in "$_hellofpga_dev"/hellofpga[0-9]*; do
		[ -e "$n" ] || continue
		n=${n%%_*}
		echo "$n"
	done | sort -u
}

_hellofpga() {
	local cur prev= cmd= i w words cword

	# "emu:0" is one word: COMP_WORDS splits it at the colon, so the
	# words are those of the line up to the cursor, split at blanks
	if declare -F _get_comp_words_by_ref >/dev/null; then
		_get_comp_words_by_ref -n : cur prev words cword
	else
		read -ra words <<<"${COMP_LINE:0:COMP_POINT}"
		[[ ${COMP_LINE:0:COMP_POINT} == *[[:blank:]] ]] && words+=("")
		cword=$((${#words[@]} - 1))
		cur=${words[cword]}
		[ "$cword" -gt 0 ] && prev=${words[cword - 1]}
	fi
	_hellofpga_complete
	declare -F __ltrim_colon_completions >/dev/null &&
		__ltrim_colon_completions "$cur"
	return 0
}

# _hellofpga_complete: COMPREPLY for cur, prev, words and cword.
_hellofpga_complete() {
	# the command: the first word that is no global option or its argument
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		case $w in
		-d | --device) i=$((i + 1)) ;;
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	COMPREPLY=()
	case $prev in
	-d | --device)
		[ -z "$cmd" ] &&
			COMPREPLY=($(compgen -W "$(_hellofpga_devices)" -- "$cur"))
		return 0
		;;
	--sections)
		COMPREPLY=($(compgen -W "sweep frames pin overhead stream gpuwait" -- "$cur"))
		return 0
		;;
	esac
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "${_hellofpga_opts[-]}" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_hellofpga_commands" -- "$cur"))
		fi
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${_hellofpga_opts[$cmd]:-}" -- "$cur"))
	elif [ "$cmd" = help ] && [ "$prev" = help ]; then
		COMPREPLY=($(compgen -W "$_hellofpga_commands" -- "$cur"))
	fi
}

complete -o default -F _hellofpga hellofpga
