#!/usr/bin/env bash
# One black-box test case of how `ge` treats the files it is given: what is not
# a regular file (a FIFO, a device, a directory) is refused at once, text files
# are read up to a cap, values are checked against their ranges, and every error
# is one escaped line. Each command runs under `timeout` so that a hang fails.
# usage: files_test.sh CASE GE_BINARY REPO_ROOT WORK_DIR
set -euo pipefail

readonly case_name=$1 ge=$2 repo=$3 work=$4
readonly demo="$repo/models/demo_cnn.onnx"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

source "$(dirname "${BASH_SOURCE[0]}")/test_helpers.sh"

# Long enough for the demo model's import, far shorter than a blocked read.
readonly limit=60

# write_npy FILE SHAPE_TEXT DATA_BYTES: a float32 .npy whose header says
# 'shape': SHAPE_TEXT verbatim, followed by DATA_BYTES zero bytes.
write_npy() {
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
path, shape, data_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += " " * (64 - 10 - len(header) % 64 - 1) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(bytes(data_bytes))
PY
}

# write_calibration: the folder calib with one batch for the demo model's input.
write_calibration() {
  mkdir calib
  write_npy calib/batch.npy '(1, 3, 32, 32)' $((4 * 3 * 32 * 32))
}

# expect_refused PATH KIND: every option that names a file refuses PATH, a
# KIND ("a FIFO (named pipe)", "a directory", ...), with one line naming it.
expect_refused() {
  local path=$1 kind=$2
  local refused="$path: cannot read .*: it is $kind, not a regular file"
  expect_failure 1 "$refused" timeout $limit "$ge" run "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" info "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" compare "$demo" "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" run "$demo" --loop 1 --input "image=$path"
  expect_failure 1 "$refused" timeout $limit "$ge" compile "$demo" -o x.gem --op_precision_mode "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" compile "$demo" -o x.gem --keep_dtype "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" quantize "$demo" --calib-data calib -o q.gem --config "$path"
  expect_failure 1 "$refused" timeout $limit "$ge" quantize "$demo" --from-record "$path" -o q.gem
  [[ $kind == "a directory" ]] ||
    expect_failure 1 "$refused" timeout $limit "$ge" quantize "$demo" --calib-data "$path" -o q.gem
}

case $case_name in
  special_files)
    write_calibration
    mkfifo fifo
    expect_refused fifo 'a FIFO (named pipe)'
    expect_refused /dev/zero 'a character device'
    mkdir folder
    expect_refused folder 'a directory'
    # A FIFO posing as a list entry or a folder's .npy file is refused or left out, never read.
    printf 'fifo\n' >list.txt
    expect_failure 1 'fifo: cannot read .npy file: it is a FIFO' timeout $limit "$ge" quantize "$demo" \
      --calib-data list.txt -o q.gem
    mkdir fifo_folder && mkfifo fifo_folder/x.npy
    expect_failure 1 'fifo_folder: no .npy files' timeout $limit "$ge" quantize "$demo" --calib-data fifo_folder \
      -o q.gem
    ;;
  oversized_text)
    # Sparse: 17 MiB on paper, nothing on disk.
    truncate -s 17M big.txt
    write_calibration
    expect_failure 1 'big.txt: cannot read quant config file: it has more than 16 MiB' \
      timeout $limit "$ge" quantize "$demo" --calib-data calib -o q.gem --config big.txt
    expect_failure 1 'big.txt: cannot read calibration list: it has more than 16 MiB' \
      timeout $limit "$ge" quantize "$demo" --calib-data big.txt -o q.gem
    expect_failure 1 'big.txt: cannot read config file: it has more than 16 MiB' \
      timeout $limit "$ge" compile "$demo" -o x.gem --op_precision_mode big.txt
    ;;
  escaped_errors)
    # A CR in the middle of a line, a terminal escape and a stray byte: one line, escaped.
    printf 'SoftmaxV2=high_precision\r\nRelu\rhigh\x1b[2J\xff\r\n' >binary.ini
    expect_failure 1 "binary.ini:2: expected 'key=value', got 'Relu\\\\rhigh\\\\x1B\[2J\\\\xFF'" \
      timeout $limit "$ge" compile "$demo" -o x.gem --op_precision_mode binary.ini
    printf 'batch_num: 1\r\nbogus\x1b[2J\xff: 1\n' >binary.cfg
    write_calibration
    expect_failure 1 'binary.cfg:2:' timeout $limit "$ge" quantize "$demo" --calib-data calib -o q.gem \
      --config binary.cfg
    printf 'override_layer_configs { layer_name: "a\\r\\x01b" calibration_config { arq_quantize { quant_bits: 3 } } }\n' \
      >names.cfg
    expect_failure 1 'override_layer_configs\[0\] (a\\r\\x01b)' timeout $limit "$ge" quantize "$demo" \
      --calib-data calib -o q.gem --config names.cfg
    expect_failure 1 'no\\x1B\[31mpe.onnx' "$ge" run $'no\x1b[31mpe.onnx'
    ;;
  config_ranges)
    write_calibration
    printf 'common_config {\n  ifmr_quantize { search_step: 0.0000001 }\n}\n' >step.cfg
    expect_failure 1 'step.cfg:2:19: common_config.ifmr_quantize.search_step: 1e-07 makes .* at most 10000' \
      timeout $limit "$ge" quantize "$demo" --calib-data calib -o q.gem --config step.cfg
    printf 'common_config { ifmr_quantize { search_range_end: inf } }\n' >end.cfg
    expect_failure 1 'end.cfg:1:33: .*search_range: start 0.7 and end inf' \
      timeout $limit "$ge" quantize "$demo" --calib-data calib -o q.gem --config end.cfg
    printf 'record { key: "conv1" value { scale_d: 1e-40 offset_d: 0 } }\n' >tiny.txt
    expect_failure 1 'tiny.txt:1:31: record\[0\] (conv1).scale_d: scale_d = 1e-40 must be positive and finite, and at least' \
      timeout $limit "$ge" quantize "$demo" --from-record tiny.txt -o q.gem
    ;;
  npy_malformed)
    write_npy negative.npy '(1, -3, 32, 32)' 0
    expect_failure 1 'negative.npy: not a readable .npy file: dim 1 of the shape is negative (-3)' \
      "$ge" run "$demo" --loop 1 --input image=negative.npy
    write_npy trailing.npy '(1, 3, 32, 32)' $((4 * 3 * 32 * 32 + 5))
    expect_failure 1 'trailing.npy: not a readable .npy file: 5 bytes after the data (12288 bytes' \
      "$ge" run "$demo" --loop 1 --input image=trailing.npy
    write_npy overflow.npy '(4294967296, 4294967296, 4294967296)' 0
    expect_failure 1 'overflow.npy: not a readable .npy file: shape .* has more than 2^64 bytes' \
      "$ge" run "$demo" --loop 1 --input image=overflow.npy
    write_npy float_dim.npy '(1, 3.5, 32, 32)' 0
    expect_failure 1 'float_dim.npy: not a readable .npy file: malformed header: dim 1 of the shape is' \
      "$ge" run "$demo" --loop 1 --input image=float_dim.npy
    write_npy no_commas.npy '(1 3 32 32)' 0
    expect_failure 1 "no_commas.npy: not a readable .npy file: malformed header: expected ')' at '3 32 32)" \
      "$ge" run "$demo" --loop 1 --input image=no_commas.npy
    write_npy one_dim.npy '(12288)' 0
    expect_failure 1 'one_dim.npy: not a readable .npy file: malformed header: shape (12288) is not a tuple' \
      "$ge" run "$demo" --loop 1 --input image=one_dim.npy
    ;;
  *)
    fail "unknown test case"
    ;;
esac
