<?php

use App\Http\Controllers\InvoiceController;
use App\Http\Controllers\ProfileController;
use Illuminate\Support\Facades\Route;

Route::get('/', function () {
    return view('welcome');
});

Route::view('/about', 'pages.about')->name('about');

Route::middleware(['auth', 'verified'])->prefix('billing')->group(function () {
    Route::get('/invoices', [InvoiceController::class, 'index'])->name('invoices.index');
    Route::post('/invoices', [InvoiceController::class, 'store'])->name('invoices.store');
    Route::match(['get', 'post'], '/invoices/{invoice}/pay', [InvoiceController::class, 'pay']);

    Route::prefix('admin')->group(function () {
        Route::delete('/invoices/{invoice}', [InvoiceController::class, 'destroy']);
    });
});

Route::resource('profiles', ProfileController::class)->only(['show', 'edit', 'update']);
