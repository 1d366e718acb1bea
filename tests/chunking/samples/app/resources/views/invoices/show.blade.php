@extends('layouts.app')

@section('title', 'Invoice')

@section('content')
    <x-page-header :title="$invoice->number">
        <x-slot name="actions">
            <a href="{{ route('invoices.pdf', $invoice) }}" class="btn">Download PDF</a>
        </x-slot>
    </x-page-header>

    {{-- Lines of the invoice, one row per product --}}
    <table class="table">
        @foreach ($invoice->lines as $line)
            <tr>
                <td>{{ $line->description }}</td>
                <td>{{ $line->quantity }}</td>
                <td>{{ money($line->total) }}</td>
            </tr>
        @endforeach
    </table>

    @if ($invoice->isOverdue())
        <x-alert type="danger">
            This invoice is {{ $invoice->daysOverdue() }} days overdue.
        </x-alert>
    @endif
@endsection

@push('scripts')
    <script src="{{ asset('js/invoice.js') }}"></script>
@endpush
