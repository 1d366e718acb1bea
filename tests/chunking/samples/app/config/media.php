<?php

use Illuminate\Support\Str;

return [

    /*
    |--------------------------------------------------------------------------
    | Storage Driver
    |--------------------------------------------------------------------------
    |
    | The disk songs and artwork are stored on. "local" keeps them under the
    | media path below; "s3" and "dropbox" stream them from the cloud.
    |
    */

    'storage_driver' => env('STORAGE_DRIVER', 'local'),

    /*
    |--------------------------------------------------------------------------
    | Sync Options
    |--------------------------------------------------------------------------
    |
    | A timeout is set when the library is synced from the command line, so
    | that a huge library does not hold the lock forever. Files over the size
    | limit are skipped and reported.
    |
    */

    'sync' => [
        'timeout' => env('APP_MAX_SCAN_TIME', 600),
        'max_file_size' => env('MAX_FILE_SIZE', 1024 * 1024 * 512),
        'ignore_dot_files' => env('IGNORE_DOT_FILES', true),
    ],

    /*
    |--------------------------------------------------------------------------
    | Transcoding
    |--------------------------------------------------------------------------
    |
    | FFmpeg transcodes FLAC and other lossless formats to MP3 on the fly, at
    | the bit rate below, when the client cannot play them.
    |
    */

    'transcoding' => [
        'ffmpeg_path' => env('FFMPEG_PATH', '/usr/local/bin/ffmpeg'),
        'bit_rate' => (int) env('OUTPUT_BIT_RATE', 128),
        'cache_key' => Str::slug(env('APP_NAME', 'koel')) . '_transcodes',
    ],
];
